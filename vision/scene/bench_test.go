package scene

import (
	"testing"

	"gocv.io/x/gocv"
)

func benchRender(b *testing.B, cam Camera) {
	s, err := NewSession(Config{Seed: 3, Throws: 2, Kinds: []Kind{KindValid, KindCocked}, Camera: cam})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	m := gocv.NewMat()
	defer m.Close()
	if _, err := s.Render(0, &m); err != nil { // background and noise are made once
		b.Fatal(err)
	}
	// cycle through the frames of the first throw, where the dice are
	tt := s.Truth()[0]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Render(tt.StartFrame+i%(tt.EndFrame-tt.StartFrame), &m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/frame")
}

// BenchmarkRender1080 is the per-frame render cost (no encoding) at the demo camera.
func BenchmarkRender1080(b *testing.B) { benchRender(b, DefaultCamera()) }

// BenchmarkRender720 is the per-frame render cost at 1280x720.
func BenchmarkRender720(b *testing.B) { benchRender(b, Camera{Width: 1280, Height: 720, FPS: 30}) }

// BenchmarkEncode1080 is the cost of one MJPG-quality JPEG encode of a rendered frame.
func BenchmarkEncode1080(b *testing.B) {
	s, err := NewSession(Config{Seed: 3, Throws: 1, Camera: DefaultCamera()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	m := gocv.NewMat()
	defer m.Close()
	if _, err := s.Render(30, &m); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, m, []int{gocv.IMWriteJpegQuality, 90})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(buf.Len()))
		buf.Close()
	}
}

// BenchmarkGenerateDemo renders the demo's session (12 throws at
// 1920x1080, scripts/demo.sh's kinds) to a temporary directory. Run it with
// -benchtime 1x: one op is the whole session.
func BenchmarkGenerateDemo(b *testing.B) {
	ks, err := ParseKinds("valid,valid,off_table,valid,in_bowl,valid,on_bank,valid,in_rail,valid,cocked,valid")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		m, err := Generate(b.TempDir(), Config{Seed: 7, Throws: 12, Kinds: ks, Camera: DefaultCamera()})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(m.Frames), "frames")
	}
}
