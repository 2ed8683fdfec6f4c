package rules

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestChiSquareSF(t *testing.T) {
	tests := []struct {
		name  string
		x     float64
		df    int
		want  float64
		tolRe float64
	}{
		{"df 2 is exp(-x/2), series branch", 2, 2, math.Exp(-1), 1e-9},
		{"df 2, continued fraction branch", 10, 2, math.Exp(-5), 1e-9},
		{"df 4 is exp(-y)(1+y)", 3, 4, math.Exp(-1.5) * 2.5, 1e-9},
		{"df 4 far tail", 40, 4, math.Exp(-20) * 21, 1e-6},
		{"df 5 critical value at 0.05", 11.0705, 5, 0.05, 1e-4},
		{"df 5 critical value at 0.001", 20.515, 5, 0.001, 1e-3},
		{"zero statistic", 0, 5, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ChiSquareSF(tc.x, tc.df)
			if math.Abs(got-tc.want) > tc.tolRe*math.Max(tc.want, 1e-300) {
				t.Errorf("ChiSquareSF(%g, %d) = %g, want %g", tc.x, tc.df, got, tc.want)
			}
		})
	}
}

func TestBinomialTails(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if !near(BinomialUpper(1, 2, 0.5), 0.75) || !near(BinomialLower(0, 2, 0.5), 0.25) {
		t.Error("binomial(2, 0.5) tails wrong")
	}
	if BinomialUpper(0, 5, 0.3) != 1 || BinomialUpper(6, 5, 0.3) != 0 || BinomialLower(-1, 5, 0.3) != 0 || BinomialLower(5, 5, 0.3) != 1 {
		t.Error("binomial tail edges wrong")
	}
	if BinomialUpper(3, 3, 1) != 1 || BinomialUpper(1, 3, 0) != 0 || !near(BinomialLower(0, 3, 0), 1) {
		t.Error("degenerate p wrong")
	}
	// The two tails overlap at k: lower(k) + upper(k+1) = 1.
	if s := BinomialLower(10, 60, 1.0/6) + BinomialUpper(11, 60, 1.0/6); math.Abs(s-1) > 1e-9 {
		t.Errorf("tails add to %g", s)
	}
}

func TestFaceCounts(t *testing.T) {
	fair := FaceCounts{10, 10, 10, 10, 10, 10}
	if stat, df, p := fair.ChiSquare(); stat != 0 || df != 5 || p != 1 {
		t.Errorf("even counts: %g %d %g", stat, df, p)
	}
	if _, _, p := (FaceCounts{}).ChiSquare(); p != 1 {
		t.Error("no counts must not alert")
	}
	loaded := FaceCounts{5, 5, 5, 5, 5, 35}
	stat, _, p := loaded.ChiSquare()
	if math.Abs(stat-75) > 1e-9 || p > 1e-10 {
		t.Errorf("loaded: stat %g p %g, want 75 and tiny", stat, p)
	}
}

func TestSPRT(t *testing.T) {
	if _, err := NewSPRT(0.5, 0.5, 0.01, 0.01); err == nil {
		t.Error("p0 == p1 must be refused")
	}
	s, err := NewSPRT(1.0/6, 0.25, 0.001, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	// All successes: alerts as soon as log(0.999/0.001)/log(1.5) is passed.
	var alerts, at int
	for i := 1; i <= 40; i++ {
		var hit bool
		s, hit, _, _ = s.Observe(true)
		if hit {
			alerts++
			if at == 0 {
				at = i
			}
		}
	}
	if want := int(math.Ceil(math.Log(0.99/0.001) / math.Log(1.5))); at != want || alerts != 40/want {
		t.Errorf("first alert at %d (want %d), %d alerts (want %d: it restarts after each)", at, want, alerts, 40/want)
	}
}

func roll2(r *rand.Rand, six float64) []int {
	face := func() int {
		if six > 0 && r.Float64() < six {
			return 6
		}
		return 1 + r.IntN(6)
	}
	return []int{face(), face()}
}

func TestIntegrityFairDiceStayQuiet(t *testing.T) {
	in, err := NewIntegrity(StatsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var seq []Alert
	for i := range 6000 {
		seq = append(seq, in.Observe(string(rune('A'+i%4)), 1+i/3000, roll2(r, 0))...)
	}
	if len(seq) > 3 {
		t.Errorf("fair dice raised %d sequential alerts in 6000 rolls: %+v", len(seq), seq)
	}
	if a := in.Test(); len(a) != 0 {
		t.Errorf("fair dice failed the chi-square test: %+v", a)
	}
	if in.ByPosition[0].N() != 6000 || in.BySet[1].N()+in.BySet[2].N() != 12000 {
		t.Errorf("counts: %v %v", in.ByPosition, in.BySet)
	}
	rate := in.Shooters["A"]
	if rate.Rolls != 1500 || rate.PValue() < 0.001 {
		t.Errorf("shooter A: %+v p %g", rate, rate.PValue())
	}
}

func TestIntegrityLoadedDieAlertsWithoutFlooding(t *testing.T) {
	in, _ := NewIntegrity(StatsConfig{})
	r := rand.New(rand.NewPCG(3, 4))
	var face []Alert
	firstAt := 0
	for i := range 1000 {
		for _, a := range in.Observe("B", 2, roll2(r, 0.3)) {
			if a.Kind == "face_sequential" {
				face = append(face, a)
				if firstAt == 0 {
					firstAt = i + 1
				}
			}
		}
	}
	if len(face) == 0 || firstAt > 300 {
		t.Fatalf("a die showing 6 about 42%% of the time alerted first at roll %d (%d alerts)", firstAt, len(face))
	}
	if len(face) > 100 {
		t.Errorf("%d alerts in 1000 rolls is flooding", len(face))
	}
	for _, a := range face {
		if a.Face != 6 || a.PValue > 0.01 || a.N == 0 || !strings.HasPrefix(a.Subject, "position ") {
			t.Errorf("alert %+v: want face 6 with a small p-value and its sample size", a)
		}
	}
	chi := in.Test()
	if len(chi) != 3 { // position 1, position 2, set 2
		t.Fatalf("chi-square alerts %+v", chi)
	}
	for _, a := range chi {
		wantN := 1000
		if a.Subject == "set 2" {
			wantN = 2000 // both dice of the set
		}
		if a.Kind != "face_bias" || a.PValue >= 0.001 || a.N != wantN {
			t.Errorf("alert %+v", a)
		}
	}
}

func TestSevenRate(t *testing.T) {
	in, _ := NewIntegrity(StatsConfig{})
	var alerts []Alert
	for i := range 80 {
		d := []int{3, 4}
		if i%2 == 1 {
			d = []int{2, 2}
		}
		alerts = append(alerts, in.Observe("S9", 1, d)...)
	}
	var seven []Alert
	for _, a := range alerts {
		if a.Kind == "seven_rate" {
			seven = append(seven, a)
		}
	}
	if len(seven) == 0 || seven[0].Subject != "shooter S9" || seven[0].PValue > 0.01 || seven[0].N == 0 {
		t.Fatalf("half sevens must alert with a p-value: %+v", seven)
	}
	r := in.Shooters["S9"]
	if r.Rolls != 80 || r.Sevens != 40 || r.Rate() != 0.5 || r.PValue() > 1e-5 {
		t.Errorf("%+v rate %g p %g", r, r.Rate(), r.PValue())
	}
	if (SevenRate{}).Rate() != 0 {
		t.Error("no rolls is a zero rate")
	}
	if _, err := NewIntegrity(StatsConfig{FaceP1: 2}); err == nil {
		t.Error("a face rate of 2 must be refused")
	}
	if _, err := NewIntegrity(StatsConfig{SevenP1: -1}); err == nil {
		t.Error("a negative seven rate must be refused")
	}
	if _, err := NewIntegrity(StatsConfig{Alpha: 2}); err == nil {
		t.Error("alpha 2 must be refused")
	}
}
