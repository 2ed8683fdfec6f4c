package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// cmdGenerate renders a deterministic throw session with ground truth:
//
//	dicewatch generate --out DIR --throws N --seed S [--width W --height H --fps F | --close] [--kinds valid,off_table,...]
//	dicewatch generate --out DIR --stills N --seed S   (still scenes for the reader: still_SEED.jpg + stills.jsonl)
func cmdGenerate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "output directory (required)")
	throws := fs.Int("throws", 12, "number of throws")
	seed := fs.Int64("seed", 1, "seed: the same seed gives the same session")
	width := fs.Int("width", 1920, "frame width in pixels")
	height := fs.Int("height", 1080, "frame height in pixels")
	fps := fs.Float64("fps", 30, "frames per second")
	pxmm := fs.Float64("px-per-mm", 0, "camera scale (0: 0.85 at 1920x1080, else the same framing)")
	closeCam := fs.Bool("close", false, "the closer 1280x720 camera (0.85 px/mm, far end of the layout only: kinds valid, off_table, cocked, stacked)")
	kinds := fs.String("kinds", "", "comma-separated throw kinds, used in order and repeated ("+fmt.Sprint(scene.Kinds())+"); empty: a seeded mix")
	noise := fs.Float64("noise", 0, "camera noise sigma in grey levels (0: default 2; negative: none)")
	flicker := fs.Float64("flicker", 0, "lighting flicker amplitude (0: default 0.015; negative: none)")
	drop := fs.Float64("drop-rate", 0, "chance a frame is lost (0: default 1/400; negative: none)")
	quality := fs.Int("jpeg-quality", 0, "JPEG quality of the video frames (0: default 80)")
	stills := fs.Int("stills", 0, "instead of a session, render this many still scenes (640x640 unless --still-size) with seeds S..S+N-1")
	stillSize := fs.Int("still-size", 640, "width and height of still scenes")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "generate: --out DIR is required and no positional arguments are taken")
		fs.Usage()
		return 2
	}
	if *stills > 0 {
		start := time.Now()
		if err := scene.WriteStills(*out, *seed, *stills, scene.StillOptions{Width: *stillSize, Height: *stillSize}); err != nil {
			fmt.Fprintln(stderr, "generate:", err)
			return 1
		}
		fmt.Fprintf(stdout, "generate: %d still scenes (seeds %d..%d) into %s in %.1f s\n", *stills, *seed, *seed+int64(*stills)-1, *out, time.Since(start).Seconds())
		return 0
	}
	ks, err := scene.ParseKinds(*kinds)
	if err != nil {
		fmt.Fprintln(stderr, "generate:", err)
		return 2
	}
	cam := scene.Camera{Width: *width, Height: *height, FPS: *fps, PxPerMM: *pxmm}
	switch {
	case *closeCam:
		cam = scene.CloseCamera()
		cam.FPS = *fps
	case *width == 1920 && *height == 1080 && *pxmm == 0:
		cam = scene.DefaultCamera()
		cam.FPS = *fps
	}
	start := time.Now()
	m, err := scene.Generate(*out, scene.Config{Seed: *seed, Throws: *throws, Kinds: ks, Camera: cam,
		Noise: *noise, Flicker: *flicker, DropRate: *drop, JPEGQuality: *quality})
	if err != nil {
		fmt.Fprintln(stderr, "generate:", err)
		return 1
	}
	fmt.Fprintf(stdout, "generate: %d throws, %d frames (%.1f s at %g fps, %dx%d), %d dropped, seed %d, into %s in %.1f s\n",
		m.Throws, m.Frames, float64(m.DurationMS)/1000, m.Camera.FPS, m.Camera.Width, m.Camera.Height,
		len(m.DroppedFrames), m.Seed, *out, time.Since(start).Seconds())
	return 0
}
