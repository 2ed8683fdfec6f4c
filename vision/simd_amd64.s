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

// Constants for diff8.
DATA diffPerm<>+0(SB)/4, $0
DATA diffPerm<>+4(SB)/4, $1
DATA diffPerm<>+8(SB)/4, $2
DATA diffPerm<>+12(SB)/4, $0
DATA diffPerm<>+16(SB)/4, $3
DATA diffPerm<>+20(SB)/4, $4
DATA diffPerm<>+24(SB)/4, $5
DATA diffPerm<>+28(SB)/4, $0
GLOBL diffPerm<>(SB), RODATA|NOPTR, $32

// Byte 3j+c of a lane to dword j, zero-extended, for channel c.
DATA diffShufB<>+0(SB)/8, $0x8080800380808000
DATA diffShufB<>+8(SB)/8, $0x8080800980808006
DATA diffShufB<>+16(SB)/8, $0x8080800380808000
DATA diffShufB<>+24(SB)/8, $0x8080800980808006
GLOBL diffShufB<>(SB), RODATA|NOPTR, $32
DATA diffShufG<>+0(SB)/8, $0x8080800480808001
DATA diffShufG<>+8(SB)/8, $0x8080800a80808007
DATA diffShufG<>+16(SB)/8, $0x8080800480808001
DATA diffShufG<>+24(SB)/8, $0x8080800a80808007
GLOBL diffShufG<>(SB), RODATA|NOPTR, $32
DATA diffShufR<>+0(SB)/8, $0x8080800580808002
DATA diffShufR<>+8(SB)/8, $0x8080800b80808008
DATA diffShufR<>+16(SB)/8, $0x8080800580808002
DATA diffShufR<>+24(SB)/8, $0x8080800b80808008
GLOBL diffShufR<>(SB), RODATA|NOPTR, $32

DATA diffPack<>+0(SB)/4, $0
DATA diffPack<>+4(SB)/4, $4
DATA diffPack<>+8(SB)/4, $0
DATA diffPack<>+12(SB)/4, $0
DATA diffPack<>+16(SB)/4, $0
DATA diffPack<>+20(SB)/4, $0
DATA diffPack<>+24(SB)/4, $0
DATA diffPack<>+28(SB)/4, $0
GLOBL diffPack<>(SB), RODATA|NOPTR, $32

DATA diffThird<>+0(SB)/4, $43691
GLOBL diffThird<>(SB), RODATA|NOPTR, $4
DATA diffByte<>+0(SB)/4, $255
GLOBL diffByte<>(SB), RODATA|NOPTR, $4

// func diff8(f, b *uint8, groups int, m, gray *uint8, bright *uint8)
//
// diffMask's per-pixel part for groups*8 pixels, eight at a time in
// 32-bit lanes: m[i] = max(min(colour term, 255), bright[pm<<8|bm]) and
// gray[i] = pm. It loads 32 bytes of f and b for each 24 it uses, and four
// bytes of bright at each index (bright must have three bytes after its
// last entry). A sum s <= 765 divided by 3 is (s*43691)>>17 exactly.
TEXT ·diff8(SB), NOSPLIT, $0-48
	MOVQ f+0(FP), SI
	MOVQ b+8(FP), DX
	MOVQ groups+16(FP), CX
	MOVQ m+24(FP), DI
	MOVQ gray+32(FP), R8
	MOVQ bright+40(FP), R9
	VMOVDQU diffPerm<>(SB), Y15
	VMOVDQU diffShufB<>(SB), Y14
	VMOVDQU diffShufG<>(SB), Y13
	VMOVDQU diffShufR<>(SB), Y12
	VPBROADCASTD diffThird<>(SB), Y11
	VPBROADCASTD diffByte<>(SB), Y10
	VMOVDQU diffPack<>(SB), Y9
diffloop:
	VMOVDQU (SI), Y0
	VPERMD Y0, Y15, Y0
	VPSHUFB Y14, Y0, Y1
	VPSHUFB Y13, Y0, Y2
	VPSHUFB Y12, Y0, Y3
	VMOVDQU (DX), Y0
	VPERMD Y0, Y15, Y0
	VPSHUFB Y14, Y0, Y4
	VPSHUFB Y13, Y0, Y5
	VPSHUFB Y12, Y0, Y6
	// pm and bm
	VPADDD Y1, Y2, Y7
	VPADDD Y3, Y7, Y7
	VPMULLD Y11, Y7, Y7
	VPSRLD $17, Y7, Y7
	VPADDD Y4, Y5, Y8
	VPADDD Y6, Y8, Y8
	VPMULLD Y11, Y8, Y8
	VPSRLD $17, Y8, Y8
	// dm = pm - bm; |pc - bc - dm| per channel, summed, capped at 255
	VPSUBD Y8, Y7, Y0
	VPSUBD Y4, Y1, Y1
	VPSUBD Y0, Y1, Y1
	VPABSD Y1, Y1
	VPSUBD Y5, Y2, Y2
	VPSUBD Y0, Y2, Y2
	VPABSD Y2, Y2
	VPSUBD Y6, Y3, Y3
	VPSUBD Y0, Y3, Y3
	VPABSD Y3, Y3
	VPADDD Y2, Y1, Y1
	VPADDD Y3, Y1, Y1
	VPMINSD Y10, Y1, Y1
	// the brightness term from the table
	VPSLLD $8, Y7, Y2
	VPOR Y8, Y2, Y2
	VPCMPEQD Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPGATHERDD Y3, (R9)(Y2*1), Y4
	VPAND Y10, Y4, Y4
	VPMAXSD Y4, Y1, Y1
	// eight bytes out each
	VPACKUSDW Y1, Y1, Y1
	VPACKUSWB Y1, Y1, Y1
	VPERMD Y1, Y9, Y1
	VMOVQ X1, (DI)
	VPACKUSDW Y7, Y7, Y7
	VPACKUSWB Y7, Y7, Y7
	VPERMD Y7, Y9, Y7
	VMOVQ X7, (R8)
	ADDQ $24, SI
	ADDQ $24, DX
	ADDQ $8, DI
	ADDQ $8, R8
	DECQ CX
	JNZ diffloop
	VZEROUPPER
	RET

// func grad32(l, r, u, d, out *uint8, groups int)
//
// gradMask's gradient for groups*32 pixels: out[x] = min(|r[x]-l[x]| +
// |d[x]-u[x]|, 255), the cap by unsigned saturating addition.
TEXT ·grad32(SB), NOSPLIT, $0-48
	MOVQ l+0(FP), SI
	MOVQ r+8(FP), DX
	MOVQ u+16(FP), R8
	MOVQ d+24(FP), R9
	MOVQ out+32(FP), DI
	MOVQ groups+40(FP), CX
gradloop:
	VMOVDQU (SI), Y0
	VMOVDQU (DX), Y1
	VPMAXUB Y0, Y1, Y2
	VPMINUB Y0, Y1, Y3
	VPSUBB Y3, Y2, Y2
	VMOVDQU (R8), Y0
	VMOVDQU (R9), Y1
	VPMAXUB Y0, Y1, Y4
	VPMINUB Y0, Y1, Y5
	VPSUBB Y5, Y4, Y4
	VPADDUSB Y4, Y2, Y2
	VMOVDQU Y2, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, DI
	DECQ CX
	JNZ gradloop
	VZEROUPPER
	RET

// func mark32(out, m *uint8, thr uint8, groups int)
//
// gradMask's marking for groups*32 pixels: m[x] = 255 where out[x] > thr
// (thr < 255), as m[x] |= 0xff there.
TEXT ·mark32(SB), NOSPLIT, $0-32
	MOVQ out+0(FP), SI
	MOVQ m+8(FP), DI
	MOVBLZX thr+16(FP), AX
	INCL AX
	MOVQ groups+24(FP), CX
	MOVL AX, X7
	VPBROADCASTB X7, Y7
markloop:
	VMOVDQU (SI), Y0
	VPMAXUB Y7, Y0, Y1
	VPCMPEQB Y0, Y1, Y1
	VPOR (DI), Y1, Y1
	VMOVDQU Y1, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ markloop
	VZEROUPPER
	RET

DATA sampleHalf<>+0(SB)/8, $0.5
GLOBL sampleHalf<>(SB), RODATA|NOPTR, $8
DATA sampleOne<>+0(SB)/8, $1.0
GLOBL sampleOne<>(SB), RODATA|NOPTR, $8
DATA sampleFF<>+0(SB)/4, $0xff
GLOBL sampleFF<>(SB), RODATA|NOPTR, $4
DATA sampleThree<>+0(SB)/4, $3
GLOBL sampleThree<>(SB), RODATA|NOPTR, $4

// func sampleRow(uc, us *float64, cx, cy, vs, vc float64, pix *uint8, w3 int, out *float64)
//
// One row of faceScratch.sample, four pixels at a time, for a rectangle
// whose every sample and its right and lower neighbours lie inside the
// frame with a byte to spare (no clamping; four-byte reads). For pixel i:
// x = cx + uc[i] - vs - 0.5, y = cy + us[i] + vc - 0.5, and each channel
// the bilinear sum over the four neighbours, in the Go loop's order, a
// multiply then an add each (no fused multiply-add). w3 is the frame's
// row length in bytes; out gets 32 BGR pixels.
TEXT ·sampleRow(SB), NOSPLIT, $0-72
	MOVQ uc+0(FP), SI
	MOVQ us+8(FP), DX
	MOVQ pix+48(FP), R8
	MOVQ w3+56(FP), AX
	MOVQ out+64(FP), DI
	MOVL AX, X13
	VPBROADCASTD X13, X13
	VPBROADCASTD sampleFF<>(SB), X14
	MOVQ $8, CX
sampleloop:
	VMOVUPD (SI), Y0
	VMOVUPD (DX), Y1
	VBROADCASTSD sampleHalf<>(SB), Y15
	// x and y
	VBROADCASTSD cx+16(FP), Y12
	VADDPD Y0, Y12, Y2
	VBROADCASTSD vs+32(FP), Y12
	VSUBPD Y12, Y2, Y2
	VSUBPD Y15, Y2, Y2
	VBROADCASTSD cy+24(FP), Y12
	VADDPD Y1, Y12, Y3
	VBROADCASTSD vc+40(FP), Y12
	VADDPD Y12, Y3, Y3
	VSUBPD Y15, Y3, Y3
	// whole and fractional parts
	VROUNDPD $1, Y2, Y4
	VROUNDPD $1, Y3, Y5
	VSUBPD Y4, Y2, Y2
	VSUBPD Y5, Y3, Y3
	VCVTTPD2DQY Y4, X4
	VCVTTPD2DQY Y5, X5
	// o00 = y0*w3 + 3*x0
	VPMULLD X13, X5, X5
	VPADDD X4, X5, X5
	VPADDD X4, X5, X5
	VPADDD X4, X5, X5
	// weights
	VBROADCASTSD sampleOne<>(SB), Y15
	VSUBPD Y2, Y15, Y6
	VSUBPD Y3, Y15, Y7
	VMULPD Y7, Y6, Y8
	VMULPD Y7, Y2, Y9
	VMULPD Y3, Y6, Y10
	VMULPD Y3, Y2, Y11
	// the four neighbours: X4 (x0, y0), X1 (x0+1, y0), X3 (x0, y0+1), X7 (x0+1, y0+1)
	VPBROADCASTD sampleThree<>(SB), X15
	VPCMPEQD X12, X12, X12
	VPXOR X4, X4, X4
	VPGATHERDD X12, (R8)(X5*1), X4
	VPADDD X15, X5, X0
	VPCMPEQD X12, X12, X12
	VPXOR X1, X1, X1
	VPGATHERDD X12, (R8)(X0*1), X1
	VPADDD X13, X5, X2
	VPCMPEQD X12, X12, X12
	VPXOR X3, X3, X3
	VPGATHERDD X12, (R8)(X2*1), X3
	VPADDD X15, X2, X6
	VPCMPEQD X12, X12, X12
	VPXOR X7, X7, X7
	VPGATHERDD X12, (R8)(X6*1), X7
	// blue
	VPAND X14, X4, X0
	VCVTDQ2PD X0, Y0
	VMULPD Y8, Y0, Y0
	VPAND X14, X1, X2
	VCVTDQ2PD X2, Y2
	VMULPD Y9, Y2, Y2
	VADDPD Y2, Y0, Y0
	VPAND X14, X3, X2
	VCVTDQ2PD X2, Y2
	VMULPD Y10, Y2, Y2
	VADDPD Y2, Y0, Y0
	VPAND X14, X7, X2
	VCVTDQ2PD X2, Y2
	VMULPD Y11, Y2, Y2
	VADDPD Y2, Y0, Y0
	// green
	VPSRLD $8, X4, X4
	VPSRLD $8, X1, X1
	VPSRLD $8, X3, X3
	VPSRLD $8, X7, X7
	VPAND X14, X4, X5
	VCVTDQ2PD X5, Y5
	VMULPD Y8, Y5, Y5
	VPAND X14, X1, X2
	VCVTDQ2PD X2, Y2
	VMULPD Y9, Y2, Y2
	VADDPD Y2, Y5, Y5
	VPAND X14, X3, X2
	VCVTDQ2PD X2, Y2
	VMULPD Y10, Y2, Y2
	VADDPD Y2, Y5, Y5
	VPAND X14, X7, X2
	VCVTDQ2PD X2, Y2
	VMULPD Y11, Y2, Y2
	VADDPD Y2, Y5, Y5
	// red
	VPSRLD $8, X4, X4
	VPSRLD $8, X1, X1
	VPSRLD $8, X3, X3
	VPSRLD $8, X7, X7
	VPAND X14, X4, X6
	VCVTDQ2PD X6, Y6
	VMULPD Y8, Y6, Y6
	VPAND X14, X1, X2
	VCVTDQ2PD X2, Y2
	VMULPD Y9, Y2, Y2
	VADDPD Y2, Y6, Y6
	VPAND X14, X3, X2
	VCVTDQ2PD X2, Y2
	VMULPD Y10, Y2, Y2
	VADDPD Y2, Y6, Y6
	VPAND X14, X7, X2
	VCVTDQ2PD X2, Y2
	VMULPD Y11, Y2, Y2
	VADDPD Y2, Y6, Y6
	// interleave: B in Y0, G in Y5, R in Y6
	VMOVSD X0, 0(DI)
	VMOVHPD X0, 24(DI)
	VMOVSD X5, 8(DI)
	VMOVHPD X5, 32(DI)
	VMOVSD X6, 16(DI)
	VMOVHPD X6, 40(DI)
	VEXTRACTF128 $1, Y0, X0
	VEXTRACTF128 $1, Y5, X5
	VEXTRACTF128 $1, Y6, X6
	VMOVSD X0, 48(DI)
	VMOVHPD X0, 72(DI)
	VMOVSD X5, 56(DI)
	VMOVHPD X5, 80(DI)
	VMOVSD X6, 64(DI)
	VMOVHPD X6, 88(DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $96, DI
	DECQ CX
	JNZ sampleloop
	VZEROUPPER
	RET

// func u8ToF32(src *uint8, n int, dst *float32)
//
// dst[i] = float32(src[i]) for n bytes, n a multiple of 8 (n >= 8).
TEXT ·u8ToF32(SB), NOSPLIT, $0-24
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ dst+16(FP), DI
	SHRQ $3, CX
u8f32loop:
	VPMOVZXBD (SI), Y0
	VCVTDQ2PS Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $8, SI
	ADDQ $32, DI
	DECQ CX
	JNZ u8f32loop
	VZEROUPPER
	RET

// func areaRow2(sf, tf *float32, tab *areaEntry, cells *areaCell, ncells int, hs, ht *float32)
//
// areaRows3 on two rows of 3-channel pixels already as float32 (sf and tf
// each readable one float past their last pixel): for each cell, the sum
// over its entries, in order, of pixel times weight (a multiply then an
// add, no fused multiply-add, in float32 as the Go loop), the three
// channels of row s in lanes 0..2 and of row t in lanes 4..6 (lanes 3 and
// 7, the next pixel's first channel, are dropped). hs and ht get three
// floats a cell.
TEXT ·areaRow2(SB), NOSPLIT, $0-56
	MOVQ sf+0(FP), SI
	MOVQ tf+8(FP), DX
	MOVQ tab+16(FP), R8
	MOVQ cells+24(FP), R9
	MOVQ ncells+32(FP), CX
	MOVQ hs+40(FP), DI
	MOVQ ht+48(FP), R10
areacell:
	MOVQ 0(R9), AX
	MOVQ 8(R9), BX
	VXORPS Y0, Y0, Y0
	CMPQ AX, BX
	JGE areastore
	MOVQ AX, R11
	SHLQ $4, R11
	ADDQ R8, R11
	SUBQ AX, BX
areaentry:
	MOVQ 0(R11), R12
	LEAQ (R12)(R12*2), R12
	VBROADCASTSS 8(R11), Y2
	VMOVUPS (SI)(R12*4), X1
	VINSERTF128 $1, (DX)(R12*4), Y1, Y1
	VMULPS Y2, Y1, Y1
	VADDPS Y1, Y0, Y0
	ADDQ $16, R11
	DECQ BX
	JNZ areaentry
areastore:
	VMOVSD X0, (DI)
	VEXTRACTPS $2, X0, 8(DI)
	VEXTRACTF128 $1, Y0, X3
	VMOVSD X3, (R10)
	VEXTRACTPS $2, X3, 8(R10)
	ADDQ $12, DI
	ADDQ $12, R10
	ADDQ $16, R9
	DECQ CX
	JNZ areacell
	VZEROUPPER
	RET

// func areaRow4(f *[4]*float32, tab *areaEntry, cells *areaCell, ncells int, h *[4]*float32)
//
// areaRow2 on four rows at once, rows 0 and 1 in one register and rows 2
// and 3 in another: two sums that do not wait on each other.
TEXT ·areaRow4(SB), NOSPLIT, $0-40
	MOVQ f+0(FP), AX
	MOVQ 0(AX), SI
	MOVQ 8(AX), DX
	MOVQ 16(AX), R13
	MOVQ 24(AX), R14
	MOVQ tab+8(FP), R8
	MOVQ cells+16(FP), R9
	MOVQ ncells+24(FP), CX
	MOVQ h+32(FP), AX
	MOVQ 0(AX), DI
	MOVQ 8(AX), R10
	MOVQ 16(AX), R15
	MOVQ 24(AX), AX
area4cell:
	MOVQ 0(R9), R11
	MOVQ 8(R9), BX
	VXORPS Y0, Y0, Y0
	VXORPS Y4, Y4, Y4
	CMPQ R11, BX
	JGE area4store
	SUBQ R11, BX
	SHLQ $4, R11
	ADDQ R8, R11
area4entry:
	MOVQ 0(R11), R12
	LEAQ (R12)(R12*2), R12
	VBROADCASTSS 8(R11), Y2
	VMOVUPS (SI)(R12*4), X1
	VINSERTF128 $1, (DX)(R12*4), Y1, Y1
	VMOVUPS (R13)(R12*4), X5
	VINSERTF128 $1, (R14)(R12*4), Y5, Y5
	VMULPS Y2, Y1, Y1
	VMULPS Y2, Y5, Y5
	VADDPS Y1, Y0, Y0
	VADDPS Y5, Y4, Y4
	ADDQ $16, R11
	DECQ BX
	JNZ area4entry
area4store:
	VMOVSD X0, (DI)
	VEXTRACTPS $2, X0, 8(DI)
	VEXTRACTF128 $1, Y0, X3
	VMOVSD X3, (R10)
	VEXTRACTPS $2, X3, 8(R10)
	VMOVSD X4, (R15)
	VEXTRACTPS $2, X4, 8(R15)
	VEXTRACTF128 $1, Y4, X3
	VMOVSD X3, (AX)
	VEXTRACTPS $2, X3, 8(AX)
	ADDQ $12, DI
	ADDQ $12, R10
	ADDQ $12, R15
	ADDQ $12, AX
	ADDQ $16, R9
	DECQ CX
	JNZ area4cell
	VZEROUPPER
	RET

// func conv9(o, src *float32, p int, w *float32, groups int)
//
// conv3's nine taps of one input plane for groups*8 outputs, eight at a
// time: o[i] += w[t] * src[i + off(t)] for t = 0..8 in order, off(t) being
// (t/3)*p + t%3, each tap a multiply then an add (no fused multiply-add),
// so each output rounds as the scalar loop's nine passes do.
TEXT ·conv9(SB), NOSPLIT, $0-40
	MOVQ o+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ p+16(FP), BX
	MOVQ w+24(FP), DX
	MOVQ groups+32(FP), CX
	TESTQ CX, CX
	JLE conv9done
	SHLQ $2, BX
	LEAQ (SI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	VBROADCASTSS 0(DX), Y0
	VBROADCASTSS 4(DX), Y1
	VBROADCASTSS 8(DX), Y2
	VBROADCASTSS 12(DX), Y3
	VBROADCASTSS 16(DX), Y4
	VBROADCASTSS 20(DX), Y5
	VBROADCASTSS 24(DX), Y6
	VBROADCASTSS 28(DX), Y7
	VBROADCASTSS 32(DX), Y8
conv9loop:
	VMOVUPS (DI), Y9
	VMULPS (SI), Y0, Y10
	VADDPS Y10, Y9, Y9
	VMULPS 4(SI), Y1, Y10
	VADDPS Y10, Y9, Y9
	VMULPS 8(SI), Y2, Y10
	VADDPS Y10, Y9, Y9
	VMULPS (R8), Y3, Y10
	VADDPS Y10, Y9, Y9
	VMULPS 4(R8), Y4, Y10
	VADDPS Y10, Y9, Y9
	VMULPS 8(R8), Y5, Y10
	VADDPS Y10, Y9, Y9
	VMULPS (R9), Y6, Y10
	VADDPS Y10, Y9, Y9
	VMULPS 4(R9), Y7, Y10
	VADDPS Y10, Y9, Y9
	VMULPS 8(R9), Y8, Y10
	VADDPS Y10, Y9, Y9
	VMOVUPS Y9, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JNZ conv9loop
	VZEROUPPER
conv9done:
	RET
