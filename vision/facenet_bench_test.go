package vision

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkFaceNetPredict: one patch read by the shipped net, under
// netTurns turns.
func BenchmarkFaceNetPredict(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, err := builtinFaceNet()
	if err != nil {
		b.Fatal(err)
	}
	var x, tt [netIn]float32
	for k := range x {
		x[k] = float32(rng.Float64())
	}
	a := newNetAct(n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n.predictTurns(x[:], tt[:], a)
	}
}
