package scene

import (
	"bytes"
	"image"
	"reflect"
	"testing"
)

func TestStillDeterministic(t *testing.T) {
	a, ta, err := StillJPEG(5, StillOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, tb, err := StillJPEG(5, StillOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) || !reflect.DeepEqual(ta, tb) {
		t.Fatal("same seed, different still")
	}
	c, tc, err := StillJPEG(6, StillOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, c) || reflect.DeepEqual(ta, tc) {
		t.Fatal("different seeds, same still")
	}
}

// TestStillTruth checks the truth of many scenes: boxes inside the picture
// and about the die's size, values 1..6, every case the reader must handle
// present somewhere, and the decoded picture the stated size.
func TestStillTruth(t *testing.T) {
	n := 80
	if testing.Short() {
		n = 20
	}
	var cocked, stacked, chips, walls, touching, tilted, styles = 0, 0, 0, 0, 0, 0, map[string]bool{}
	for seed := int64(0); seed < int64(n); seed++ {
		m, tr, err := Still(seed, StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if m.Cols() != tr.Width || m.Rows() != tr.Height {
			t.Fatalf("seed %d: picture %dx%d, truth %dx%d", seed, m.Cols(), m.Rows(), tr.Width, tr.Height)
		}
		m.Close()
		if len(tr.Dice) == 0 {
			t.Errorf("seed %d: no dice", seed)
		}
		if tr.CameraTiltDeg > 0 {
			tilted++
		}
		frame := image.Rect(0, 0, tr.Width, tr.Height)
		for i, d := range tr.Dice {
			styles[d.Style] = true
			if d.Value < 1 || d.Value > 6 {
				t.Errorf("seed %d die %d: value %d", seed, i, d.Value)
			}
			b := boxRect(d.Box)
			if !b.In(frame) {
				t.Errorf("seed %d die %d: box %v outside the picture", seed, i, b)
			}
			w := float64(max(b.Dx(), b.Dy()))
			if w < tr.EdgePx*0.6 || w > tr.EdgePx*1.9 {
				t.Errorf("seed %d die %d: box %v for a %.0f px die", seed, i, b, tr.EdgePx)
			}
			if !b.In(boxRect(d.Hull).Inset(-1)) {
				t.Errorf("seed %d die %d: top box %v not inside hull %v", seed, i, b, d.Hull)
			}
			if !d.Flat {
				cocked++
				if d.TiltDeg < 8 {
					t.Errorf("seed %d die %d: cocked at %.1f degrees", seed, i, d.TiltDeg)
				}
			}
			if d.OnDie >= 0 {
				stacked++
				if d.SizeRatio < 1.05 || tr.Dice[d.OnDie].Occluded <= 0 {
					t.Errorf("seed %d die %d: stacked with ratio %.2f, occluding %.2f of the die below", seed, i, d.SizeRatio, tr.Dice[d.OnDie].Occluded)
				}
			}
			if d.TouchesChips {
				chips++
			}
			if d.AgainstWall {
				walls++
			}
			if d.Touching {
				touching++
			}
		}
	}
	for name, c := range map[string]int{"cocked": cocked, "stacked": stacked, "against chips": chips, "against walls": walls, "touching": touching, "camera tilt": tilted} {
		if c == 0 {
			t.Errorf("no %s dice in %d scenes", name, n)
		}
	}
	if len(styles) < 8 {
		t.Errorf("only %d colour schemes in %d scenes: %v", len(styles), n, styles)
	}
	t.Logf("%d scenes: %d cocked, %d stacked, %d against chips, %d against walls, %d touching, %d angled, %d schemes", n, cocked, stacked, chips, walls, touching, tilted, len(styles))
}

func BenchmarkStill(b *testing.B) {
	for i := 0; i < b.N; i++ {
		m, _, err := Still(int64(i), StillOptions{})
		if err != nil {
			b.Fatal(err)
		}
		m.Close()
	}
}
