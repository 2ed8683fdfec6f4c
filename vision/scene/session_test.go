package scene

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/sensors"
)

func newTestSession(t testing.TB, cfg Config) *Session {
	t.Helper()
	s, err := NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestDeterministic(t *testing.T) {
	cfg := Config{Seed: 42, Throws: 3, Kinds: []Kind{KindValid, KindStacked, KindOffTable}, Camera: Camera{Width: 640, Height: 360}}
	a, b := newTestSession(t, cfg), newTestSession(t, cfg)
	if !reflect.DeepEqual(a.Truth(), b.Truth()) {
		t.Fatal("same seed, different truth")
	}
	if !reflect.DeepEqual(a.SensorEvents(), b.SensorEvents()) {
		t.Fatal("same seed, different sensor trace")
	}
	k := a.Truth()[0].StartFrame + 3
	fa, fb := renderBytes(t, a, k), renderBytes(t, b, k)
	if !bytes.Equal(fa, fb) {
		t.Fatal("same seed, different frame bytes")
	}
	c := newTestSession(t, Config{Seed: 43, Throws: 3, Kinds: cfg.Kinds, Camera: cfg.Camera})
	if reflect.DeepEqual(a.Truth(), c.Truth()) {
		t.Fatal("different seeds gave the same truth")
	}
	if bytes.Equal(fa, renderBytes(t, c, k)) {
		t.Fatal("different seeds gave the same frame")
	}
}

func renderBytes(t testing.TB, s *Session, k int) []byte {
	t.Helper()
	m := gocv.NewMat()
	defer m.Close()
	if _, err := s.Render(k, &m); err != nil {
		t.Fatal(err)
	}
	return m.ToBytes()
}

// TestTruthConsistent checks every throw kind on two cameras: the rest
// positions are in the zones the calibration gives, the expected verdicts
// follow DESIGN.md, and the dice boxes land where the calibration maps
// their table positions.
func TestTruthConsistent(t *testing.T) {
	want := map[Kind][]rules.Reason{
		KindValid:    nil,
		KindOffTable: {rules.OffTable},
		KindInBowl:   {rules.InBowl},
		KindOnBank:   {rules.OnBank},
		KindInRail:   {rules.InRail},
		KindCocked:   {rules.Cocked},
		KindStacked:  {rules.Stacked},
	}
	cams := []Camera{DefaultCamera(), {Width: 1280, Height: 720, FPS: 30}}
	for _, cam := range cams {
		for seed := int64(1); seed <= 6; seed++ {
			s := newTestSession(t, Config{Seed: seed, Throws: len(Kinds()), Kinds: Kinds(), Camera: cam})
			cal := s.Calibration()
			for _, tt := range s.Truth() {
				name := string(tt.Kind)
				if got := tt.Expected.Reasons; !reflect.DeepEqual(got, want[tt.Kind]) {
					t.Errorf("%dx%d seed %d %s: reasons %v, want %v", cam.Width, cam.Height, seed, name, got, want[tt.Kind])
				}
				var wantAdv []rules.Advisory
				for _, d := range tt.Dice {
					if d.TouchesChips {
						wantAdv = []rules.Advisory{rules.HitChips}
					}
				}
				if !reflect.DeepEqual(tt.Expected.Advisories, wantAdv) {
					t.Errorf("%dx%d seed %d %s: advisories %v, want %v", cam.Width, cam.Height, seed, name, tt.Expected.Advisories, wantAdv)
				}
				if tt.Kind == KindValid && tt.Expected.Verdict != rules.Valid {
					t.Errorf("%s: verdict %s", name, tt.Expected.Verdict)
				}
				if !(tt.StartMS < tt.AtRestMS && tt.AtRestMS+300 < tt.CollectMS && tt.CollectMS < tt.ClearMS) {
					t.Errorf("%s: times out of order: start %d rest %d collect %d clear %d", name, tt.StartMS, tt.AtRestMS, tt.CollectMS, tt.ClearMS)
				}
				if tt.Expected.Verdict == rules.Valid && tt.Expected.Total != tt.Dice[0].Value+tt.Dice[1].Value {
					t.Errorf("%s: total %d, dice %d+%d", name, tt.Expected.Total, tt.Dice[0].Value, tt.Dice[1].Value)
				}
				for _, d := range tt.Dice {
					if d.FirstSeenMS < tt.StartMS || d.FirstSeenMS > tt.AtRestMS {
						t.Errorf("%s die %d: first seen %d outside the throw", name, d.Die, d.FirstSeenMS)
					}
					if d.Exited {
						continue
					}
					if z := cal.ZoneAt(calibration.Point{X: d.XMM, Y: d.YMM}); z != d.Zone {
						t.Errorf("%s die %d: zone %s, calibration says %s", name, d.Die, d.Zone, z)
					}
					// the box centre maps back to the rest position
					cx, cy := float64(d.Box[0]+d.Box[2])/2, float64(d.Box[1]+d.Box[3])/2
					p := cal.ToTable(calibration.Point{X: cx, Y: cy})
					if dd := math.Hypot(p.X-d.XMM, p.Y-d.YMM); dd > edgeMM*0.8 {
						t.Errorf("%s die %d: box centre is %.1f mm from the rest position", name, d.Die, dd)
					}
					if d.Box[0] < 0 || d.Box[1] < 0 || d.Box[2] > cam.Width || d.Box[3] > cam.Height {
						t.Errorf("%s die %d: box %v not inside the %dx%d picture", name, d.Die, d.Box, cam.Width, cam.Height)
					}
					if d.Value < 1 || d.Value > 6 {
						t.Errorf("%s die %d: value %d", name, d.Die, d.Value)
					}
				}
				if tt.Kind == KindOffTable && len(tt.Exits) != 1 {
					t.Errorf("off_table: %d exits", len(tt.Exits))
				}
			}
		}
	}
}

// TestFrameTruthMatchesThrowTruth checks the per-frame truth against the
// per-throw truth: nothing moves between at-rest and the stick, every die
// moves before at-rest, and the first-seen frames agree.
func TestFrameTruthMatchesThrowTruth(t *testing.T) {
	s := newTestSession(t, Config{Seed: 9, Throws: 4, Kinds: []Kind{KindValid, KindOffTable, KindStacked, KindInBowl}, Camera: Camera{Width: 640, Height: 360}})
	m := gocv.NewMat()
	defer m.Close()
	for _, tt := range s.Truth() {
		seen := map[int]int{}
		for k := tt.StartFrame - 2; k < tt.EndFrame; k++ {
			ft, err := s.Render(k, &m)
			if err != nil {
				t.Fatal(err)
			}
			anyMoving := false
			for _, d := range ft.Dice {
				anyMoving = anyMoving || d.Moving
				if _, ok := seen[d.Die]; !ok {
					seen[d.Die] = k
				}
			}
			tms := s.cam.FrameMS(k)
			switch {
			case k >= tt.AtRestFrame && tms < tt.CollectMS+int64(stickIn*1000):
				if anyMoving {
					t.Errorf("throw %d frame %d: a die moves after at-rest %d", tt.Throw, k, tt.AtRestMS)
				}
			case k >= tt.StartFrame && k < tt.AtRestFrame-1:
				if !anyMoving && k > tt.StartFrame+1 {
					t.Errorf("throw %d frame %d: nothing moves before at-rest", tt.Throw, k)
				}
			}
		}
		for _, d := range tt.Dice {
			if k, ok := seen[d.Die]; !ok || d.FirstSeenFrame-k > 1 || k > d.FirstSeenFrame {
				t.Errorf("throw %d die %d: first drawn in frame %d, truth says %d", tt.Throw, d.Die, k, d.FirstSeenFrame)
			}
		}
	}
}

func TestGenerateFiles(t *testing.T) {
	dir := t.TempDir()
	// strong flicker gives each frame its own brightness, so frame order shows
	cfg := Config{Seed: 5, Throws: 2, Kinds: []Kind{KindInRail, KindOffTable}, Camera: Camera{Width: 640, Height: 360}, DropRate: 0.02, Flicker: 0.08}
	m, err := Generate(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Files {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: missing or empty (%v)", f, err)
		}
	}
	cal, err := calibration.Load(filepath.Join(dir, FileCalibration))
	if err != nil {
		t.Fatalf("calibration does not load: %v", err)
	}
	if cal.Camera.Width != 640 || cal.Die.EdgeMM != 19 {
		t.Errorf("calibration camera %+v die %+v", cal.Camera, cal.Die)
	}
	// the video plays back with OpenCV: every frame, at the right size
	vc, err := gocv.VideoCaptureFile(filepath.Join(dir, FileVideo))
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	img := gocv.NewMat()
	defer img.Close()
	// the frames come back in order: each has the brightness of its own
	// render (or, when dropped, of the previous frame's)
	s := newTestSession(t, cfg)
	ref := gocv.NewMat()
	defer ref.Close()
	mean := func(a gocv.Mat) float64 {
		m := a.Mean()
		return (m.Val1 + m.Val2 + m.Val3) / 3
	}
	n := 0
	checked := 0
	for vc.Read(&img) {
		if img.Empty() {
			break
		}
		if img.Cols() != 640 || img.Rows() != 360 {
			t.Fatalf("frame %d is %dx%d", n, img.Cols(), img.Rows())
		}
		if n%7 == 3 || s.Dropped(n) {
			want := n
			if s.Dropped(n) {
				want = n - 1
			}
			if _, err := s.Render(want, &ref); err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(mean(img) - mean(ref)); d > 1.2 {
				t.Errorf("frame %d (dropped %v): mean %.2f grey levels from its render's", n, s.Dropped(n), d)
			}
			checked++
		}
		n++
	}
	if checked < 10 {
		t.Errorf("only %d frames compared", checked)
	}
	if n != m.Frames {
		t.Errorf("read %d frames, manifest says %d", n, m.Frames)
	}
	if got := vc.Get(gocv.VideoCaptureFPS); math.Abs(got-30) > 0.01 {
		t.Errorf("fps %g", got)
	}
	// frames.jsonl has one line per frame, in order, with the drops marked
	lines := readLines(t, filepath.Join(dir, FileFrames))
	if len(lines) != m.Frames {
		t.Fatalf("frames.jsonl has %d lines, want %d", len(lines), m.Frames)
	}
	drops := 0
	for k, l := range lines {
		var ft FrameTruth
		if err := json.Unmarshal(l, &ft); err != nil {
			t.Fatal(err)
		}
		if ft.Frame != k || ft.TMS != m.Camera.FrameMS(k) {
			t.Fatalf("line %d: frame %d t %d", k, ft.Frame, ft.TMS)
		}
		if ft.Dropped {
			drops++
		}
	}
	if drops != len(m.DroppedFrames) || drops == 0 {
		t.Errorf("%d dropped frames in frames.jsonl, %d in the manifest", drops, len(m.DroppedFrames))
	}
	// sensors.jsonl is in time order in the sensors line format, with a rail
	// break for each throw and a back-wall hit
	var evs []sensors.Event
	for _, l := range readLines(t, filepath.Join(dir, FileSensors)) {
		var e sensors.Event
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatal(err)
		}
		if len(evs) > 0 && e.AtMS < evs[len(evs)-1].AtMS {
			t.Fatalf("sensor events out of order at %d", e.AtMS)
		}
		evs = append(evs, e)
	}
	state := map[string]bool{}
	for _, e := range evs {
		if state[e.Name] == e.Active {
			t.Errorf("%s: two edges to active=%v in a row at %d ms", e.Name, e.Active, e.AtMS)
		}
		state[e.Name] = e.Active
	}
	roles := map[sensors.Role]int{}
	for _, e := range evs {
		if e.Active {
			roles[e.Role]++
		}
	}
	if roles[sensors.RoleRail] != 2 || roles[sensors.RoleBackWall] < 2 {
		t.Errorf("sensor activations %v", roles)
	}
	truth := readLines(t, filepath.Join(dir, FileTruth))
	if len(truth) != 2 {
		t.Fatalf("truth.jsonl has %d lines", len(truth))
	}
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSpace(b), []byte("\n"))
}

// TestCloseCamera: the closer 1280x720 camera takes the kinds it can see,
// keeps every die at rest inside the picture, and refuses the others.
func TestCloseCamera(t *testing.T) {
	ks := []Kind{KindValid, KindCocked, KindStacked, KindOffTable}
	for seed := int64(1); seed <= 5; seed++ {
		s := newTestSession(t, Config{Seed: seed, Throws: 8, Kinds: ks, Camera: CloseCamera()})
		for _, tt := range s.Truth() {
			if tt.Kind == KindValid && tt.Expected.Verdict != rules.Valid {
				t.Errorf("seed %d throw %d valid: reasons %v", seed, tt.Throw, tt.Expected.Reasons)
			}
			for _, d := range tt.Dice {
				if d.Exited {
					continue
				}
				if d.Box[0] < 0 || d.Box[1] < 0 || d.Box[2] > 1280 || d.Box[3] > 720 {
					t.Errorf("seed %d throw %d die %d: at rest at %v, outside the picture", seed, tt.Throw, d.Die, d.Box)
				}
				if w := d.Box[2] - d.Box[0]; w < 14 {
					t.Errorf("die box %v: want the closer camera's ~16 px die", d.Box)
				}
			}
		}
		if len(s.Truth()) != 8 {
			t.Fatal("missing throws")
		}
	}
	for _, k := range []Kind{KindInBowl, KindOnBank, KindInRail} {
		if _, err := NewSession(Config{Seed: 1, Throws: 1, Kinds: []Kind{k}, Camera: CloseCamera()}); err == nil {
			t.Errorf("%s accepted for a camera that cannot see it", k)
		}
	}
	// a seeded mix draws only kinds the camera sees
	s := newTestSession(t, Config{Seed: 3, Throws: 40, Camera: CloseCamera()})
	for _, tt := range s.Truth() {
		if tt.Kind == KindInBowl || tt.Kind == KindOnBank || tt.Kind == KindInRail {
			t.Errorf("mix drew %s", tt.Kind)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"no throws", Config{Throws: 0}},
		{"tiny camera", Config{Throws: 1, Camera: Camera{Width: 10, Height: 10}}},
		{"bad fps", Config{Throws: 1, Camera: Camera{Width: 640, Height: 360, FPS: 1000}}},
		{"bad quality", Config{Throws: 1, JPEGQuality: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewSession(tc.cfg); err == nil {
				t.Fatal("no error")
			}
		})
	}
	if _, err := ParseKinds("valid,bogus"); err == nil {
		t.Error("ParseKinds accepted a bogus kind")
	}
}

func TestPulseEdges(t *testing.T) {
	type ev struct {
		ms     int64
		name   string
		active bool
	}
	for _, tc := range []struct {
		name string
		in   []pulse
		want []ev
	}{
		{"apart", []pulse{{100, 115, "back_wall", "back_wall"}, {200, 215, "back_wall", "back_wall"}},
			[]ev{{100, "back_wall", true}, {115, "back_wall", false}, {200, "back_wall", true}, {215, "back_wall", false}}},
		{"overlapping hits merge", []pulse{{108, 123, "back_wall", "back_wall"}, {100, 115, "back_wall", "back_wall"}},
			[]ev{{100, "back_wall", true}, {123, "back_wall", false}}},
		{"within debounce merge", []pulse{{100, 115, "back_wall", "back_wall"}, {119, 134, "back_wall", "back_wall"}},
			[]ev{{100, "back_wall", true}, {134, "back_wall", false}}},
		{"different inputs interleave", []pulse{{100, 140, "rail", "rail_box"}, {110, 125, "back_wall", "back_wall"}},
			[]ev{{100, "rail_box", true}, {110, "back_wall", true}, {125, "back_wall", false}, {140, "rail_box", false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []ev
			for _, e := range pulseEdges(tc.in) {
				got = append(got, ev{e.AtMS, e.Name, e.Active})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
