package vision_test

import (
	"context"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision"
	"github.com/dicewatch/dicewatch/vision/scene"
	"github.com/dicewatch/dicewatch/vision/source"
	"github.com/dicewatch/dicewatch/vision/source/sourcetest"
)

// TestPipelineCameraLostAndBack kills a live MJPEG camera under the
// pipeline and brings it back: one fault event, one recovery event, and
// the stream clock carries on across the outage instead of restarting
// with the new connection.
func TestPipelineCameraLostAndBack(t *testing.T) {
	sess, err := scene.NewSession(scene.Config{Seed: 1, Throws: 1, Camera: scene.Camera{Width: 640, Height: 360, FPS: 30}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	cal := sess.Calibration()
	img := gocv.NewMatWithSize(360, 640, gocv.MatTypeCV8UC3)
	defer img.Close()
	img.SetTo(gocv.NewScalar(40, 110, 40, 0))
	buf, err := gocv.IMEncode(gocv.JPEGFileExt, img)
	if err != nil {
		t.Fatal(err)
	}
	jpeg := append([]byte(nil), buf.GetBytes()...)
	buf.Close()
	st, err := sourcetest.NewStream([][]byte{jpeg}, 30)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	events := make(chan vision.Event, 1024)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- vision.RunPipeline(ctx, vision.PipelineConfig{
			Source: st.URL(), SourceOptions: source.Options{StallMS: 300}, Calibration: cal, SettleMS: 300,
		}, func(ev vision.Event) { events <- ev })
	}()
	defer func() {
		cancel()
		<-done
	}()
	next := func(what string, ok func(vision.Event) bool) vision.Event {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case ev := <-events:
				if ok(ev) {
					return ev
				}
			case <-deadline:
				t.Fatalf("no %s within 10 s", what)
			}
		}
	}
	isFrame := func(ev vision.Event) bool { return ev.Obs != nil }
	var last vision.Event
	for i := 0; i < 10; i++ {
		last = next("frame", isFrame)
	}
	// Frames may still be queued: take them until the fault.
	killed := time.Now()
	st.Kill()
	for {
		ev := next("fault", func(vision.Event) bool { return true })
		if ev.Fault != nil {
			if ev.Fault.Err == nil {
				t.Fatal("recovery before the fault")
			}
			break
		}
		last = ev
	}
	t.Logf("fault %v after the kill", time.Since(killed))
	time.Sleep(time.Second)
	if err := st.Restart(); err != nil {
		t.Fatal(err)
	}
	rec := next("recovery", func(ev vision.Event) bool { return ev.Fault != nil })
	if rec.Fault.Err != nil || !rec.Fault.Recovered {
		t.Fatalf("after the restart: %+v, want a recovery", rec.Fault)
	}
	first := next("frame after recovery", isFrame)
	outage := time.Since(killed)
	gap := first.Frame.AtMS - last.Frame.AtMS
	t.Logf("last frame before the kill at %d ms, first after the restart at %d ms (%.2f s of wall time since the kill)",
		last.Frame.AtMS, first.Frame.AtMS, outage.Seconds())
	if gap < 1000 || gap > outage.Milliseconds()+500 {
		t.Errorf("stream clock moved %d ms over a %v outage; want it to carry on by about the outage", gap, outage)
	}
}
