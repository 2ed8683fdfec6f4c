package sourcetest

import (
	"errors"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/source"
)

func TestScript(t *testing.T) {
	s := &Source{Width: 8, Height: 6, Steps: []Step{
		{AtMS: 0, BGR: [3]float64{1, 2, 3}},
		{Err: source.ErrStalled},
		{AtMS: 40, BGR: [3]float64{9, 9, 9}},
	}}
	m := gocv.NewMat()
	defer m.Close()
	f, err := s.Read(&m)
	if err != nil || f.Index != 0 || m.Cols() != 8 || m.Rows() != 6 || m.GetVecbAt(0, 0)[2] != 3 {
		t.Fatalf("step 0: %+v %v", f, err)
	}
	if _, err := s.Read(&m); !errors.Is(err, source.ErrStalled) {
		t.Fatalf("step 1: %v", err)
	}
	if f, err := s.Read(&m); err != nil || f.Index != 1 || f.AtMS != 40 {
		t.Fatalf("step 2: %+v %v", f, err)
	}
	if _, err := s.Read(&m); !errors.Is(err, source.ErrEndOfStream) {
		t.Fatalf("after the script: %v", err)
	}
	s.Close()
	if s.Closed != 1 {
		t.Fatal("close not counted")
	}
}
