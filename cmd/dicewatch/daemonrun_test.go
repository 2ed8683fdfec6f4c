package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/config"
	"github.com/dicewatch/dicewatch/vision/scene"
	"github.com/dicewatch/dicewatch/vision/source/sourcetest"
)

// validSession renders a generated session of valid throws seen by the
// close camera, no frame dropped, and writes its truth (the calibration
// among it) to a temporary folder it returns. The session is closed when
// the test ends.
func validSession(t *testing.T, seed int64, throws int) (*scene.Session, string) {
	t.Helper()
	dir := t.TempDir()
	sess, err := scene.NewSession(scene.Config{Seed: seed, Throws: throws, Kinds: []scene.Kind{"valid"},
		Camera: scene.CloseCamera(), DropRate: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	if err := sess.WriteTruth(dir); err != nil {
		t.Fatal(err)
	}
	return sess, dir
}

// sessionCamera is a scripted camera (runFlags.openSource) giving the
// session's frames, each connection one of runs. before, if set, is called
// with a frame's number before it is rendered.
func sessionCamera(sess *scene.Session, runs [][]int, before func(k int)) *sourcetest.Runs {
	return &sourcetest.Runs{
		Runs:    runs,
		FrameMS: sess.Camera().FrameMS,
		Render: func(k int, dst *gocv.Mat) error {
			if before != nil {
				before(k)
			}
			_, err := sess.Render(k, dst)
			return err
		},
	}
}

// runLogged runs the daemon in the test until it returns, and gives its
// log (info and up) with its error.
func runLogged(cfg *config.Config, f runFlags) (string, error) {
	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	err := daemon(context.Background(), cfg, f, log)
	return logs.String(), err
}

// logTail is the last n lines of a log, for a failing test's message.
func logTail(log string, n int) string {
	lines := strings.Split(log, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
