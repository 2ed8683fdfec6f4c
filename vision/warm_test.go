package vision

import (
	"testing"

	"gocv.io/x/gocv"
)

func TestGocvLinks(t *testing.T) {
	m := gocv.NewMat()
	defer m.Close()
	if !m.Empty() {
		t.Fatal("new mat not empty")
	}
}
