package scene

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// The historical draw (no camera height) must stay bit for bit what it
// was when the camera height came in (edf07bb, session 19), so figures
// measured on it stay comparable. testdata/historical-*.sha256 hold the
// SHA-256 of stills 0..39 (the JPEG and the truth's JSON) and of every
// 7th frame and the truth of two throw sessions, made at edf07bb. The
// JPEG bytes also depend on the libjpeg OpenCV was built with (Debian's
// OpenCV 4.6 here): run with -update-hashes to remake them after a
// deliberate change, and say why in the commit.

func stillHashes(n int64) (string, error) {
	var sb strings.Builder
	for seed := int64(0); seed < n; seed++ {
		b, tr, err := StillJPEG(seed, StillOptions{})
		if err != nil {
			return "", err
		}
		j, err := json.Marshal(tr)
		if err != nil {
			return "", err
		}
		h, h2 := sha256.Sum256(b), sha256.Sum256(j)
		fmt.Fprintf(&sb, "%d %s %s\n", seed, hex.EncodeToString(h[:]), hex.EncodeToString(h2[:]))
	}
	return sb.String(), nil
}

func sessionHashes(t *testing.T) string {
	var sb strings.Builder
	for _, seed := range []int64{3, 5} {
		s := newTestSession(t, Config{Seed: seed, Throws: 8, Kinds: []Kind{KindStacked, KindValid, KindCocked, KindStacked}, Camera: CloseCamera()})
		j, err := json.Marshal(s.Truth())
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(j)
		fmt.Fprintf(&sb, "%d truth %s\n", seed, hex.EncodeToString(h[:]))
		for k := 0; k < s.Frames(); k += 7 {
			hb := sha256.Sum256(renderBytes(t, s, k))
			fmt.Fprintf(&sb, "%d %d %s\n", seed, k, hex.EncodeToString(hb[:]))
		}
	}
	return sb.String()
}

func checkHashes(t *testing.T, file, got string) {
	t.Helper()
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got == string(want) {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			t.Fatalf("%s: line %d: got %q, want %q (the historical draw changed)", file, i+1, g[i], w[i])
		}
	}
	t.Fatalf("%s: %d lines, want %d", file, len(g), len(w))
}

func TestHistoricalDrawUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 40 stills and two sessions")
	}
	got, err := stillHashes(40)
	if err != nil {
		t.Fatal(err)
	}
	checkHashes(t, "testdata/historical-stills.sha256", got)
	checkHashes(t, "testdata/historical-sessions.sha256", sessionHashes(t))
}

// TestStackedView checks the pinhole figures the camera height gives.
func TestStackedView(t *testing.T) {
	for _, c := range []struct{ h, want float64 }{{1000, 981.0 / 962}, {600, 581.0 / 562}, {133, 114.0 / 95}} {
		if got := StackedView(c.h, edgeMM); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("StackedView(%g) = %g, want %g", c.h, got, c.want)
		}
		if got := ImpliedCameraHeightMM(StackedView(c.h, edgeMM), edgeMM); math.Abs(got-c.h) > 1e-9 {
			t.Errorf("ImpliedCameraHeightMM(StackedView(%g)) = %g", c.h, got)
		}
	}
}

// TestStillCameraHeight draws stills with a camera height: every die not
// stacked keeps its truth exactly, and each stacked die is drawn at
// StackedView's scale and moved out from the point under the camera
// (the picture's centre for a camera looking straight down).
func TestStillCameraHeight(t *testing.T) {
	stacked := 0
	for seed := int64(0); seed < 60 && stacked < 8; seed++ {
		_, a, err := StillJPEG(seed, StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, b, err := StillJPEG(seed, StillOptions{CameraHeightMM: HeightRange{600, 1500}})
		if err != nil {
			t.Fatal(err)
		}
		if b.CameraHeightMM < 600 || b.CameraHeightMM > 1500 || a.CameraHeightMM != 0 {
			t.Fatalf("seed %d: camera height %g (historical %g)", seed, b.CameraHeightMM, a.CameraHeightMM)
		}
		if len(a.Dice) != len(b.Dice) || a.CameraTiltDeg != b.CameraTiltDeg || a.EdgePx != b.EdgePx {
			t.Fatalf("seed %d: the height changed the scene", seed)
		}
		for i := range a.Dice {
			da, db := a.Dice[i], b.Dice[i]
			if da.OnDie < 0 {
				if da.SizeRatio != db.SizeRatio || da.CX != db.CX || da.CY != db.CY || da.Value != db.Value {
					t.Errorf("seed %d die %d: not stacked, but moved: %+v -> %+v", seed, i, da, db)
				}
				continue
			}
			want := math.Round(StackedView(b.CameraHeightMM, edgeMM)*1000) / 1000
			if db.SizeRatio != want {
				t.Errorf("seed %d die %d: size ratio %g, want %g", seed, i, db.SizeRatio, want)
			}
			if b.CameraTiltDeg == 0 {
				stacked++
				// the historical draw leaves the die in place: its centre
				// is the footprint's; with a height it moves out
				cx, cy := float64(b.Width)/2, float64(b.Height)/2
				ra, rb := math.Hypot(da.CX-cx, da.CY-cy), math.Hypot(db.CX-cx, db.CY-cy)
				if ra > 20 && math.Abs(rb-ra*db.SizeRatio) > 0.3 {
					t.Errorf("seed %d die %d: %.1f px from the centre, want %.1f*%.3f", seed, i, rb, ra, db.SizeRatio)
				}
			}
		}
	}
	if stacked < 3 {
		t.Fatalf("only %d stacked dice under a straight-down camera", stacked)
	}
	if _, _, err := StillJPEG(1, StillOptions{CameraHeightMM: HeightRange{Min: 40}}); err == nil {
		t.Error("a camera 40 mm up: no error")
	}
}

// TestSessionCameraHeight checks a throw session with a camera height:
// the stacked die's truth size is StackedView's, and it is boxed where it
// is drawn.
func TestSessionCameraHeight(t *testing.T) {
	s := newTestSession(t, Config{Seed: 3, Throws: 2, Kinds: []Kind{KindStacked}, Camera: CloseCamera(), CameraHeightMM: 1000})
	want := math.Round(StackedView(1000, edgeMM)*1000) / 1000
	n := 0
	for _, tt := range s.Truth() {
		for _, d := range tt.Dice {
			if d.OnDie != nil {
				n++
				if d.SizeRatio != want {
					t.Errorf("throw %d die %d: size ratio %g, want %g", tt.Throw, d.Die, d.SizeRatio, want)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no stacked die")
	}
	if _, err := NewSession(Config{Seed: 3, Throws: 1, CameraHeightMM: 100}); err == nil {
		t.Error("a camera 100 mm up: no error")
	}
}
