package vision

import (
	"image"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// The fast segmentation helpers must give exactly what the direct loops
// they replace give.

func chamferDirect(lab []int32, dist []float32, w int, bb image.Rectangle, id int32) {
	at := func(x, y int) float32 {
		if x < bb.Min.X || y < bb.Min.Y || x >= bb.Max.X || y >= bb.Max.Y {
			return 0
		}
		return dist[y*w+x]
	}
	for y := bb.Min.Y; y < bb.Max.Y; y++ {
		for x := bb.Min.X; x < bb.Max.X; x++ {
			if lab[y*w+x] != id {
				dist[y*w+x] = 0
				continue
			}
			dist[y*w+x] = min(1<<20, at(x-1, y)+3, at(x, y-1)+3, at(x-1, y-1)+4, at(x+1, y-1)+4)
		}
	}
	for y := bb.Max.Y - 1; y >= bb.Min.Y; y-- {
		for x := bb.Max.X - 1; x >= bb.Min.X; x-- {
			if lab[y*w+x] == id {
				dist[y*w+x] = min(dist[y*w+x], at(x+1, y)+3, at(x, y+1)+3, at(x+1, y+1)+4, at(x-1, y+1)+4)
			}
		}
	}
	for y := bb.Min.Y; y < bb.Max.Y; y++ {
		for x := bb.Min.X; x < bb.Max.X; x++ {
			dist[y*w+x] /= 3
		}
	}
}

func rectOfDirect(pts []image.Point) candidate {
	best := candidate{w: math.Inf(1), h: 1}
	for deg := 0; deg < 90; deg += 2 {
		a := float64(deg) * math.Pi / 180
		co, si := math.Cos(a), math.Sin(a)
		u0, u1, v0, v1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, p := range pts {
			x, y := float64(p.X)+0.5, float64(p.Y)+0.5
			u := x*co + y*si
			v := -x*si + y*co
			u0, u1 = math.Min(u0, u), math.Max(u1, u)
			v0, v1 = math.Min(v0, v), math.Max(v1, v)
		}
		pad := math.Abs(co) + math.Abs(si)
		cw, ch := u1-u0+pad, v1-v0+pad
		if cw*ch < best.w*best.h {
			uc, vc := (u0+u1)/2, (v0+v1)/2
			best = candidate{cx: uc*co - vc*si, cy: uc*si + vc*co, w: cw, h: ch, angle: a}
		}
	}
	return best
}

// randomBlobs labels a w x h image with overlapping discs of labels 1..3.
func randomBlobs(rng *rand.Rand, w, h int) []int32 {
	lab := make([]int32, w*h)
	for n := 0; n < 8; n++ {
		cx, cy, r := rng.Float64()*float64(w), rng.Float64()*float64(h), 3+rng.Float64()*15
		id := int32(1 + rng.IntN(3))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if math.Hypot(float64(x)-cx, float64(y)-cy) < r {
					lab[y*w+x] = id
				}
			}
		}
	}
	return lab
}

func TestDetectKernelsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const w, h = 70, 50
	for iter := 0; iter < 200; iter++ {
		lab := randomBlobs(rng, w, h)
		bb := image.Rect(rng.IntN(20), rng.IntN(15), 50+rng.IntN(21), 35+rng.IntN(16))
		id := int32(1 + rng.IntN(3))
		got, want := make([]float32, w*h), make([]float32, w*h)
		chamfer(lab, got, w, bb, id)
		chamferDirect(lab, want, w, bb, id)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("chamfer: pixel %d = %v, direct loop gives %v", i, got[i], want[i])
			}
		}
		var seen []int32
		for _, core := range findCores(lab, got, w, bb, id, float32(1+rng.IntN(4)), &seen) {
			if g, d := rectOf(core), rectOfDirect(core); !reflect.DeepEqual(g, d) {
				t.Fatalf("rectOf: %+v, direct loop gives %+v", g, d)
			}
		}
	}
}
