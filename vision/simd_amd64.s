#include "textflag.h"

// func cpuidLeaf(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuidLeaf(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xcr0() (lo, hi uint32)
TEXT ·xcr0(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, lo+0(FP)
	MOVL DX, hi+4(FP)
	RET

// func conv28(src *float64, stride uintptr, k *float64, nk int, dst *float64)
//
// dst[j] = sum over i < nk, in order, of k[i] * src[j + i*stride/8], for
// j < 28: seven lanes of four outputs, each lane a multiply then an add
// (no fused multiply-add), so each output rounds as the scalar loop does.
TEXT ·conv28(SB), NOSPLIT, $0-40
	MOVQ src+0(FP), SI
	MOVQ stride+8(FP), BX
	MOVQ k+16(FP), DX
	MOVQ nk+24(FP), CX
	MOVQ dst+32(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
convloop:
	VBROADCASTSD (DX), Y7
	VMULPD 0(SI), Y7, Y8
	VADDPD Y8, Y0, Y0
	VMULPD 32(SI), Y7, Y9
	VADDPD Y9, Y1, Y1
	VMULPD 64(SI), Y7, Y10
	VADDPD Y10, Y2, Y2
	VMULPD 96(SI), Y7, Y11
	VADDPD Y11, Y3, Y3
	VMULPD 128(SI), Y7, Y12
	VADDPD Y12, Y4, Y4
	VMULPD 160(SI), Y7, Y13
	VADDPD Y13, Y5, Y5
	VMULPD 192(SI), Y7, Y14
	VADDPD Y14, Y6, Y6
	ADDQ $8, DX
	ADDQ BX, SI
	DECQ CX
	JNZ convloop
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VZEROUPPER
	RET

// func dot36(v *float64, t *float64, n int, out *float64)
//
// out[m] = sum over p < n, in order, of v[p] * t[p*72 + m], for m < 36
// (t holds 72 interleaved templates; pass &t[36] for the second half).
TEXT ·dot36(SB), NOSPLIT, $0-32
	MOVQ v+0(FP), SI
	MOVQ t+8(FP), DX
	MOVQ n+16(FP), CX
	MOVQ out+24(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
dotloop:
	VBROADCASTSD (SI), Y15
	VMULPD 0(DX), Y15, Y9
	VADDPD Y9, Y0, Y0
	VMULPD 32(DX), Y15, Y10
	VADDPD Y10, Y1, Y1
	VMULPD 64(DX), Y15, Y11
	VADDPD Y11, Y2, Y2
	VMULPD 96(DX), Y15, Y12
	VADDPD Y12, Y3, Y3
	VMULPD 128(DX), Y15, Y13
	VADDPD Y13, Y4, Y4
	VMULPD 160(DX), Y15, Y14
	VADDPD Y14, Y5, Y5
	VMULPD 192(DX), Y15, Y9
	VADDPD Y9, Y6, Y6
	VMULPD 224(DX), Y15, Y10
	VADDPD Y10, Y7, Y7
	VMULPD 256(DX), Y15, Y11
	VADDPD Y11, Y8, Y8
	ADDQ $8, SI
	ADDQ $576, DX
	DECQ CX
	JNZ dotloop
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	VMOVUPD Y8, 256(DI)
	VZEROUPPER
	RET
