package sensorstest_test

import (
	"testing"

	"github.com/dicewatch/dicewatch/sensors/sensorstest"
)

func fired(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestClock(t *testing.T) {
	c := sensorstest.NewClock(100)
	past, _ := c.At(100)
	a, _ := c.At(150)
	b, stopB := c.At(200)
	if !fired(past) || fired(a) || fired(b) {
		t.Fatal("only a deadline already reached fires at once")
	}
	stopB()
	c.Set(149)
	if fired(a) {
		t.Fatal("fired before its time")
	}
	c.Set(250)
	if !fired(a) || fired(b) || c.NowMS() != 250 {
		t.Fatal("Set(250) must fire 150 but not the stopped 200")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("moving the clock back must panic")
		}
	}()
	c.Set(10)
}
