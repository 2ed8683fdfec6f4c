package rules

import (
	"fmt"
	"math"
	"sort"
)

// Integrity statistics are for surveillance, never accusations: each alert
// says how unlikely the counts are for fair dice (its p-value) and on how
// many rolls, and a person decides what it means.

// Alert is one integrity alert.
type Alert struct {
	// Kind is "face_bias" (chi-square of face counts), "face_sequential"
	// (a face turning up too often, sequential test) or "seven_rate".
	Kind string `json:"kind"`
	// Subject names what was tested: "position 1", "set 4", "shooter 7".
	Subject string `json:"subject"`
	// Face is the face tested by a sequential face test (0 otherwise).
	Face      int     `json:"face,omitempty"`
	Statistic float64 `json:"statistic"`
	PValue    float64 `json:"p_value"`
	N         int     `json:"n"`
	Count     int     `json:"count,omitempty"`
}

// FaceCounts counts faces 1..6 (index 0 is face 1).
type FaceCounts [6]int

// N is the number of faces counted.
func (c FaceCounts) N() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// ChiSquare tests the counts against a fair die: the statistic, its
// degrees of freedom (5) and the p-value (the chance of a statistic at
// least this large from fair dice).
func (c FaceCounts) ChiSquare() (stat float64, df int, p float64) {
	n := c.N()
	if n == 0 {
		return 0, 5, 1
	}
	e := float64(n) / 6
	for _, o := range c {
		d := float64(o) - e
		stat += d * d / e
	}
	return stat, 5, ChiSquareSF(stat, 5)
}

// ChiSquareSF is the upper tail of the chi-square distribution with df
// degrees of freedom: P(X >= x).
func ChiSquareSF(x float64, df int) float64 {
	if x <= 0 {
		return 1
	}
	return gammaQ(float64(df)/2, x/2)
}

// gammaQ is the regularized upper incomplete gamma function Q(a, x), by
// its power series below a+1 and its continued fraction above.
func gammaQ(a, x float64) float64 {
	lg, _ := math.Lgamma(a)
	front := math.Exp(-x + a*math.Log(x) - lg)
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1; n < 1000; n++ {
			term *= x / (a + float64(n))
			sum += term
			if math.Abs(term) < math.Abs(sum)*1e-15 {
				break
			}
		}
		return clamp01(1 - front*sum)
	}
	// Lentz's method for the continued fraction.
	const tiny = 1e-300
	b := x + 1 - a
	c := 1 / tiny
	d := 1 / b
	h := d
	for i := 1; i < 1000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return clamp01(front * h)
}

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }

// BinomialUpper is P(X >= k) for X ~ Binomial(n, p).
func BinomialUpper(k, n int, p float64) float64 {
	if k <= 0 {
		return 1
	}
	if k > n {
		return 0
	}
	sum := 0.0
	for i := k; i <= n; i++ {
		sum += binomPMF(i, n, p)
	}
	return clamp01(sum)
}

// BinomialLower is P(X <= k) for X ~ Binomial(n, p).
func BinomialLower(k, n int, p float64) float64 {
	if k < 0 {
		return 0
	}
	if k >= n {
		return 1
	}
	sum := 0.0
	for i := 0; i <= k; i++ {
		sum += binomPMF(i, n, p)
	}
	return clamp01(sum)
}

func binomPMF(k, n int, p float64) float64 {
	if p <= 0 {
		if k == 0 {
			return 1
		}
		return 0
	}
	if p >= 1 {
		if k == n {
			return 1
		}
		return 0
	}
	ln, _ := math.Lgamma(float64(n + 1))
	lk, _ := math.Lgamma(float64(k + 1))
	lnk, _ := math.Lgamma(float64(n - k + 1))
	return math.Exp(ln - lk - lnk + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// StatsConfig tunes the integrity tests. Zero fields take the defaults.
type StatsConfig struct {
	// Alpha is the chi-square significance level (default 0.001).
	Alpha float64 `json:"alpha" yaml:"alpha"`
	// MinRolls is the fewest rolls a chi-square test is run on (default
	// 60: an expected count of 10 per face).
	MinRolls int `json:"min_rolls" yaml:"min_rolls"`
	// SeqAlpha and SeqBeta are the sequential test's error rates
	// (defaults 0.001 and 0.01).
	SeqAlpha float64 `json:"seq_alpha" yaml:"seq_alpha"`
	SeqBeta  float64 `json:"seq_beta" yaml:"seq_beta"`
	// FaceP1 is the face probability the sequential test watches for
	// (default 0.25 against a fair 1/6).
	FaceP1 float64 `json:"face_p1" yaml:"face_p1"`
	// SevenP1 is the seven rate the per-shooter sequential test watches
	// for (default 0.25 against a fair 1/6).
	SevenP1 float64 `json:"seven_p1" yaml:"seven_p1"`
}

func (c StatsConfig) withDefaults() StatsConfig {
	if c.Alpha == 0 {
		c.Alpha = 0.001
	}
	if c.MinRolls == 0 {
		c.MinRolls = 60
	}
	if c.SeqAlpha == 0 {
		c.SeqAlpha = 0.001
	}
	if c.SeqBeta == 0 {
		c.SeqBeta = 0.01
	}
	if c.FaceP1 == 0 {
		c.FaceP1 = 0.25
	}
	if c.SevenP1 == 0 {
		c.SevenP1 = 0.25
	}
	return c
}

// SPRT is Wald's sequential probability ratio test of a Bernoulli rate: p0
// (fair) against p1 (the rate watched for). It alerts as soon as the
// evidence for p1 is strong enough, and restarts after an alert or once
// the evidence favours p0, so a biased die raises one alert per run of
// evidence rather than one per roll.
type SPRT struct {
	P0, P1       float64
	Upper, Lower float64 // log-likelihood ratio thresholds
	LLR          float64 `json:"llr"`
	N            int     `json:"n"` // trials since the last restart
	K            int     `json:"k"` // successes since the last restart
}

// NewSPRT makes a test with error rates alpha (false alert) and beta
// (missed bias).
func NewSPRT(p0, p1, alpha, beta float64) (SPRT, error) {
	if !(p0 > 0 && p0 < 1 && p1 > 0 && p1 < 1 && p1 != p0 && alpha > 0 && alpha < 1 && beta > 0 && beta < 1) {
		return SPRT{}, fmt.Errorf("rules: sprt: need 0 < p0 != p1 < 1 and 0 < alpha, beta < 1 (got %g %g %g %g)", p0, p1, alpha, beta)
	}
	return SPRT{P0: p0, P1: p1, Upper: math.Log((1 - beta) / alpha), Lower: math.Log(beta / (1 - alpha))}, nil
}

// Observe adds one trial. When the evidence crosses the upper threshold it
// returns true with the trials and successes of the run; the test then
// restarts.
func (s SPRT) Observe(success bool) (next SPRT, alert bool, n, k int) {
	s.N++
	if success {
		s.K++
		s.LLR += math.Log(s.P1 / s.P0)
	} else {
		s.LLR += math.Log((1 - s.P1) / (1 - s.P0))
	}
	switch {
	case s.LLR >= s.Upper:
		n, k = s.N, s.K
		s.LLR, s.N, s.K = 0, 0, 0
		return s, true, n, k
	case s.LLR <= s.Lower:
		s.LLR, s.N, s.K = 0, 0, 0
	}
	return s, false, 0, 0
}

// Integrity gathers the statistics of one table: face counts per die
// position and per dice set, sequential face tests per position, and
// per-shooter seven rates. Feed it every valid roll with Observe.
type Integrity struct {
	Config     StatsConfig
	ByPosition []FaceCounts
	BySet      map[int]FaceCounts
	Shooters   map[string]SevenRate
	faceSeq    [][6]SPRT
	sevenSeq   map[string]SPRT
}

// SevenRate is a shooter's rolls and sevens.
type SevenRate struct {
	Rolls  int `json:"rolls"`
	Sevens int `json:"sevens"`
}

// Rate is the share of rolls that were sevens.
func (r SevenRate) Rate() float64 {
	if r.Rolls == 0 {
		return 0
	}
	return float64(r.Sevens) / float64(r.Rolls)
}

// PValue is the two-sided binomial p-value of the sevens against the fair
// rate of 1/6 (too many or too few).
func (r SevenRate) PValue() float64 {
	lo := BinomialLower(r.Sevens, r.Rolls, 1.0/6)
	hi := BinomialUpper(r.Sevens, r.Rolls, 1.0/6)
	return math.Min(1, 2*math.Min(lo, hi))
}

// NewIntegrity starts empty statistics.
func NewIntegrity(c StatsConfig) (*Integrity, error) {
	c = c.withDefaults()
	if _, err := NewSPRT(1.0/6, c.FaceP1, c.SeqAlpha, c.SeqBeta); err != nil {
		return nil, err
	}
	if _, err := NewSPRT(1.0/6, c.SevenP1, c.SeqAlpha, c.SeqBeta); err != nil {
		return nil, err
	}
	if c.Alpha <= 0 || c.Alpha >= 1 || c.MinRolls < 1 {
		return nil, fmt.Errorf("rules: integrity: alpha %g must be in (0,1) and min_rolls %d positive", c.Alpha, c.MinRolls)
	}
	return &Integrity{Config: c, BySet: map[int]FaceCounts{}, Shooters: map[string]SevenRate{}, sevenSeq: map[string]SPRT{}}, nil
}

// Observe adds one valid roll by a shooter with a dice set and returns the
// sequential alerts it raised (face and seven-rate tests). The chi-square
// tests are run on demand by Test.
func (in *Integrity) Observe(shooter string, set int, values []int) []Alert {
	var alerts []Alert
	for pos, v := range values {
		if !isFace(v) {
			continue
		}
		for len(in.ByPosition) <= pos {
			in.ByPosition = append(in.ByPosition, FaceCounts{})
			var seq [6]SPRT
			for f := range seq {
				seq[f], _ = NewSPRT(1.0/6, in.Config.FaceP1, in.Config.SeqAlpha, in.Config.SeqBeta)
			}
			in.faceSeq = append(in.faceSeq, seq)
		}
		in.ByPosition[pos][v-1]++
		sc := in.BySet[set]
		sc[v-1]++
		in.BySet[set] = sc
		for f := range 6 {
			next, hit, n, k := in.faceSeq[pos][f].Observe(v == f+1)
			in.faceSeq[pos][f] = next
			if hit {
				alerts = append(alerts, Alert{Kind: "face_sequential", Subject: fmt.Sprintf("position %d", pos+1), Face: f + 1,
					Statistic: float64(k) / float64(n), PValue: BinomialUpper(k, n, 1.0/6), N: n, Count: k})
			}
		}
	}
	if len(values) == 2 && isFace(values[0]) && isFace(values[1]) {
		seven := values[0]+values[1] == 7
		r := in.Shooters[shooter]
		r.Rolls++
		if seven {
			r.Sevens++
		}
		in.Shooters[shooter] = r
		seq, ok := in.sevenSeq[shooter]
		if !ok {
			seq, _ = NewSPRT(1.0/6, in.Config.SevenP1, in.Config.SeqAlpha, in.Config.SeqBeta)
		}
		next, hit, n, k := seq.Observe(seven)
		in.sevenSeq[shooter] = next
		if hit {
			alerts = append(alerts, Alert{Kind: "seven_rate", Subject: "shooter " + shooter,
				Statistic: float64(k) / float64(n), PValue: BinomialUpper(k, n, 1.0/6), N: n, Count: k})
		}
	}
	return alerts
}

// Test runs the chi-square test on every die position and dice set with at
// least MinRolls faces and returns those below Alpha, sorted by subject.
func (in *Integrity) Test() []Alert {
	var alerts []Alert
	check := func(subject string, c FaceCounts) {
		if c.N() < in.Config.MinRolls {
			return
		}
		if stat, _, p := c.ChiSquare(); p < in.Config.Alpha {
			alerts = append(alerts, Alert{Kind: "face_bias", Subject: subject, Statistic: stat, PValue: p, N: c.N()})
		}
	}
	for i, c := range in.ByPosition {
		check(fmt.Sprintf("position %d", i+1), c)
	}
	sets := make([]int, 0, len(in.BySet))
	for s := range in.BySet {
		sets = append(sets, s)
	}
	sort.Ints(sets)
	for _, s := range sets {
		check(fmt.Sprintf("set %d", s), in.BySet[s])
	}
	return alerts
}
