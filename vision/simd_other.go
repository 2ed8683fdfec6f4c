//go:build !amd64

package vision

// hasAVX2 is false off amd64: the pip kernels run their Go loops.
const hasAVX2 = false

func conv28(src *float64, stride uintptr, k *float64, nk int, dst *float64) {
	panic("vision: conv28 without AVX2")
}

func dot36(v *float64, t *float64, n int, out *float64) {
	panic("vision: dot36 without AVX2")
}

func diff8(f, b *uint8, groups int, m, gray *uint8, bright *uint8) {
	panic("vision: diff8 without AVX2")
}

func grad32(l, r, u, d, out *uint8, groups int) {
	panic("vision: grad32 without AVX2")
}

func mark32(out, m *uint8, thr uint8, groups int) {
	panic("vision: mark32 without AVX2")
}

func sampleRow(uc, us *float64, cx, cy, vs, vc float64, pix *uint8, w3 int, out *float64) {
	panic("vision: sampleRow without AVX2")
}

func u8ToF32(src *uint8, n int, dst *float32) {
	panic("vision: u8ToF32 without AVX2")
}

func areaRow2(sf, tf *float32, tab *areaEntry, cells *areaCell, ncells int, hs, ht *float32) {
	panic("vision: areaRow2 without AVX2")
}

func areaRow4(f *[4]*float32, tab *areaEntry, cells *areaCell, ncells int, h *[4]*float32) {
	panic("vision: areaRow4 without AVX2")
}

func conv9(o, src *float32, p int, w *float32, groups int) {
	panic("vision: conv9 without AVX2")
}
