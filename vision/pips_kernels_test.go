package vision

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The fast pip-map kernels must give bit for bit what the direct loops
// they replace give (the reader's decisions must not move).

func blurDirect(src, dst *[faceN * faceN]float64, sigma float64) {
	rad := int(math.Ceil(2.5 * sigma))
	var k [32]float64
	var sum float64
	for i := -rad; i <= rad; i++ {
		k[i+rad] = math.Exp(-float64(i*i) / (2 * sigma * sigma))
		sum += k[i+rad]
	}
	for i := 0; i <= 2*rad; i++ {
		k[i] /= sum
	}
	var tmp [faceN * faceN]float64
	for y := 0; y < faceN; y++ {
		for x := 0; x < faceN; x++ {
			var v float64
			for i := -rad; i <= rad; i++ {
				v += k[i+rad] * src[y*faceN+min(max(x+i, 0), faceN-1)]
			}
			tmp[y*faceN+x] = v
		}
	}
	for y := 0; y < faceN; y++ {
		for x := 0; x < faceN; x++ {
			var v float64
			for i := -rad; i <= rad; i++ {
				v += k[i+rad] * tmp[min(max(y+i, 0), faceN-1)*faceN+x]
			}
			dst[y*faceN+x] = v
		}
	}
}

func open3Direct(src, dst *[faceN * faceN]float64) {
	var tmp [faceN * faceN]float64
	for y := 0; y < faceN; y++ {
		for x := 0; x < faceN; x++ {
			m := math.Inf(1)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					m = min(m, src[min(max(y+dy, 0), faceN-1)*faceN+min(max(x+dx, 0), faceN-1)])
				}
			}
			tmp[y*faceN+x] = max(m, 0)
		}
	}
	for y := 0; y < faceN; y++ {
		for x := 0; x < faceN; x++ {
			m := 0.0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					m = max(m, tmp[min(max(y+dy, 0), faceN-1)*faceN+min(max(x+dx, 0), faceN-1)])
				}
			}
			dst[y*faceN+x] = m
		}
	}
}

func correlateDirect(sh *[faceN * faceN]float64, nrm float64, bestPer *[7]float64) {
	for i := range templates {
		tp := &templates[i]
		var dot float64
		for y := faceMargin; y < faceN-faceMargin; y++ {
			for x := faceMargin; x < faceN-faceMargin; x++ {
				dot += sh[y*faceN+x] * tp.t[y*faceN+x]
			}
		}
		if ncc := dot / nrm; ncc > bestPer[tp.value] {
			bestPer[tp.value] = ncc
		}
	}
}

// randomPatch fills p with a pip-map-like patch: a few bright discs on
// noise, some values negative when signed.
func randomPatch(rng *rand.Rand, p *[faceN * faceN]float64, signed bool) {
	for i := range p {
		p[i] = rng.Float64() * 40
		if signed {
			p[i] -= 20
		}
	}
	for n := rng.IntN(7); n > 0; n-- {
		cx, cy, r := rng.Float64()*faceN, rng.Float64()*faceN, 2+rng.Float64()*3
		for y := 0; y < faceN; y++ {
			for x := 0; x < faceN; x++ {
				if math.Hypot(float64(x)-cx, float64(y)-cy) < r {
					p[y*faceN+x] += 150 + rng.Float64()*100
				}
			}
		}
	}
}

func sameBits(t *testing.T, what string, got, want *[faceN * faceN]float64) {
	t.Helper()
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: pixel %d = %v, direct loop gives %v", what, i, got[i], want[i])
		}
	}
}

func sameInner(t *testing.T, what string, got, want *[faceN * faceN]float64) {
	t.Helper()
	for y := faceMargin; y < faceN-faceMargin; y++ {
		for x := faceMargin; x < faceN-faceMargin; x++ {
			if i := y*faceN + x; math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s: pixel %d = %v, direct loop gives %v", what, i, got[i], want[i])
			}
		}
	}
}

func TestPipKernelsExact(t *testing.T) {
	templatesOnce.Do(buildTemplates)
	withKernels(t, func() { pipKernelsExact(t) })
}

func pipKernelsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var src, got, want, tmp [faceN * faceN]float64
	for iter := 0; iter < 200; iter++ {
		randomPatch(rng, &src, iter%2 == 1)
		for _, sigma := range []float64{1.2, 4.5, 0.7, 2} {
			blurInner(&src, &got, &tmp, sigma)
			blurDirect(&src, &want, sigma)
			sameInner(t, "blurInner", &got, &want)
		}
		open3(&src, &got, &tmp)
		open3Direct(&src, &want)
		sameBits(t, "open3", &got, &want)

		var bg, bw [7]float64
		for i := range bg {
			bg[i], bw[i] = -1, -1
		}
		nrm := 1 + rng.Float64()*1000
		correlate(&src, nrm, &bg)
		correlateDirect(&src, nrm, &bw)
		for v := range bg {
			if math.Float64bits(bg[v]) != math.Float64bits(bw[v]) {
				t.Fatalf("correlate: value %d scores %v, direct loop %v", v, bg[v], bw[v])
			}
		}
	}
}
