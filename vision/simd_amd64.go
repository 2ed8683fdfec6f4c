package vision

// The pip cues' blurs and template correlation on AVX2, four outputs side
// by side in each register. Each output is still summed in the scalar
// loop's order, a multiply then an add per term (no fused multiply-add),
// so the results are bit-identical to the Go loops (TestPipKernelsExact
// runs whichever the machine uses, and TestSIMDKernelsExact both).

//go:noescape
func cpuidLeaf(leaf, sub uint32) (a, b, c, d uint32)

//go:noescape
func xcr0() (lo, hi uint32)

//go:noescape
func conv28(src *float64, stride uintptr, k *float64, nk int, dst *float64)

//go:noescape
func dot36(v *float64, t *float64, n int, out *float64)

// hasAVX2 is whether the CPU has AVX2 and the OS saves the YMM registers.
var hasAVX2 = func() bool {
	maxLeaf, _, _, _ := cpuidLeaf(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuidLeaf(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if lo, _ := xcr0(); lo&6 != 6 {
		return false
	}
	_, b7, _, _ := cpuidLeaf(7, 0)
	return b7&(1<<5) != 0
}()

//go:noescape
func diff8(f, b *uint8, groups int, m, gray *uint8, bright *uint8)

//go:noescape
func grad32(l, r, u, d, out *uint8, groups int)

//go:noescape
func mark32(out, m *uint8, thr uint8, groups int)

//go:noescape
func sampleRow(uc, us *float64, cx, cy, vs, vc float64, pix *uint8, w3 int, out *float64)

//go:noescape
func u8ToF32(src *uint8, n int, dst *float32)

//go:noescape
func areaRow2(sf, tf *float32, tab *areaEntry, cells *areaCell, ncells int, hs, ht *float32)

//go:noescape
func areaRow4(f *[4]*float32, tab *areaEntry, cells *areaCell, ncells int, h *[4]*float32)

//go:noescape
func conv9(o, src *float32, p int, w *float32, groups int)
