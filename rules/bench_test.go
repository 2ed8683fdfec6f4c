package rules

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkDecideCraps(b *testing.B) {
	th := Throw{Game: Craps, DiceThrown: 2, Dice: []Die{seen(100, chips(d(3))), seen(120, d(4))}, Sensors: SensorEvidence{HasBackWall: true, BackWall: true}}
	p := DefaultProfile(Craps)
	for b.Loop() {
		Decide(th, p)
	}
}

func BenchmarkSettleCoBank(b *testing.B) {
	s := Settlement{Mode: CoBank, Areas: 7, Chung: 3, BankerWager: 5000, Hands: []HandWager{
		h(1, 100, Win), h(2, 250, Lose), h(4, 75, Push), h(5, 1000, Win), h(6, 20, Lose), h(7, 3000, Lose)}}
	p := DefaultProfile(PaiGow)
	for b.Loop() {
		if _, err := Settle(s, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIntegrityFalseAlerts reports the sequential tests' false alerts
// per 10,000 fair rolls (faces at two positions and the seven rate).
func BenchmarkIntegrityFalseAlerts(b *testing.B) {
	r := rand.New(rand.NewPCG(42, 43))
	alerts, rolls := 0, 0
	for b.Loop() {
		in, _ := NewIntegrity(StatsConfig{})
		for range 10000 {
			alerts += len(in.Observe("S", 1, roll2(r, 0)))
			rolls++
		}
	}
	b.ReportMetric(float64(alerts)/float64(rolls)*10000, "false_alerts/10k_rolls")
}

// BenchmarkIntegrityDetection reports how many rolls the sequential face
// test needs to alert on a die that shows 6 with probability 1/6+0.1.
func BenchmarkIntegrityDetection(b *testing.B) {
	r := rand.New(rand.NewPCG(44, 45))
	total, runs := 0, 0
	for b.Loop() {
		in, _ := NewIntegrity(StatsConfig{})
		for i := 1; i <= 100000; i++ {
			found := false
			for _, a := range in.Observe("S", 1, roll2(r, 0.12)) {
				if a.Kind == "face_sequential" && a.Face == 6 {
					found = true
				}
			}
			if found {
				total += i
				runs++
				break
			}
		}
	}
	if runs > 0 {
		b.ReportMetric(float64(total)/float64(runs), "rolls_to_alert")
	}
}
