package scene

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func TestDebugGenerate(t *testing.T) {
	dir := os.Getenv("SCENE_GEN")
	if dir == "" {
		t.Skip("set SCENE_GEN=dir")
	}
	ks, _ := ParseKinds("valid,valid,off_table,valid,in_bowl,valid,on_bank,valid,in_rail,valid,cocked,valid")
	st := time.Now()
	m, err := Generate(dir, Config{Seed: 7, Throws: throwsFromEnv(12), Kinds: ks, Camera: DefaultCamera()})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d frames in %v", m.Frames, time.Since(st))
}

func throwsFromEnv(def int) int {
	if n, err := strconv.Atoi(os.Getenv("SCENE_THROWS")); err == nil {
		return n
	}
	return def
}
