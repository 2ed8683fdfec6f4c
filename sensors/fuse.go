package sensors

import (
	"sort"

	"github.com/dicewatch/dicewatch/rules"
)

// FaultSet follows which inputs are faulted (stuck, chatter or
// disconnected) from the event stream. The zero value is ready to use.
type FaultSet struct {
	m map[string]map[Kind]bool
}

// Apply takes one event and reports whether the set of faulted inputs
// changed.
func (f *FaultSet) Apply(e Event) bool {
	var k Kind
	raise := true
	switch e.Kind {
	case KindStuck, KindChatter, KindDisconnected:
		k = e.Kind
	case KindStuckCleared:
		k, raise = KindStuck, false
	case KindChatterClear:
		k, raise = KindChatter, false
	case KindDisconnectedClear:
		k, raise = KindDisconnected, false
	default:
		return false
	}
	if f.m == nil {
		f.m = map[string]map[Kind]bool{}
	}
	before := len(f.m[e.Name]) > 0
	if raise {
		if f.m[e.Name] == nil {
			f.m[e.Name] = map[Kind]bool{}
		}
		f.m[e.Name][k] = true
	} else if f.m[e.Name] != nil {
		delete(f.m[e.Name], k)
		if len(f.m[e.Name]) == 0 {
			delete(f.m, e.Name)
		}
	}
	return before != (len(f.m[e.Name]) > 0)
}

// Faulted lists the faulted inputs, sorted.
func (f *FaultSet) Faulted() []string {
	out := make([]string, 0, len(f.m))
	for n := range f.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Any reports whether any input is faulted.
func (f *FaultSet) Any() bool { return len(f.m) > 0 }

// Window is one throw as the tracker saw it, on the stream clock.
type Window struct {
	StartMS int64 // the throw began
	RestMS  int64 // every die at rest
	// GraceMS: no-roll button presses up to RestMS+GraceMS still count.
	GraceMS int64
	// Faulted are inputs already faulted when the window opened (from a
	// FaultSet fed with every event before StartMS).
	Faulted []string
}

// Fusion is what the sensors said about one throw.
type Fusion struct {
	Evidence rules.SensorEvidence
	// Presses are the times of no-roll button presses during the throw or
	// within the grace period; each is a staff_call from the boxperson's
	// station.
	Presses []int64
}

// Fuse turns the events of a throw window into evidence. It is pure.
//
// An input faulted when the window opened, or that raised a fault at any
// time up to RestMS+GraceMS, is listed in Evidence.Faulted and its edges
// are ignored. Active edges from StartMS to RestMS count as rail breaks
// (by name), a bowl trip and a back-wall hit; active button edges from
// StartMS to RestMS+GraceMS are presses. HasBackWall is true when the
// config has a back_wall input that is not faulted.
func (c Config) Fuse(events []Event, w Window) Fusion {
	end := w.RestMS + w.GraceMS
	faulted := map[string]bool{}
	for _, n := range w.Faulted {
		faulted[n] = true
	}
	for _, e := range events {
		switch e.Kind {
		case KindStuck, KindChatter, KindDisconnected:
			if e.AtMS <= end {
				faulted[e.Name] = true
			}
		}
	}
	var f Fusion
	rails := map[string]bool{}
	for _, e := range events {
		if e.Kind != KindEdge || !e.Active || faulted[e.Name] || e.AtMS < w.StartMS {
			continue
		}
		during := e.AtMS <= w.RestMS
		switch e.Role {
		case RoleRail:
			if during {
				rails[e.Name] = true
			}
		case RoleBowl:
			f.Evidence.Bowl = f.Evidence.Bowl || during
		case RoleBackWall:
			f.Evidence.BackWall = f.Evidence.BackWall || during
		case RoleNoRollButton:
			if e.AtMS <= end {
				f.Presses = append(f.Presses, e.AtMS)
			}
		}
	}
	for _, in := range c.Inputs {
		if in.Role == RoleBackWall && !faulted[in.Name] {
			f.Evidence.HasBackWall = true
		}
	}
	for n := range rails {
		f.Evidence.RailBreaks = append(f.Evidence.RailBreaks, n)
	}
	sort.Strings(f.Evidence.RailBreaks)
	for n := range faulted {
		f.Evidence.Faulted = append(f.Evidence.Faulted, n)
	}
	sort.Strings(f.Evidence.Faulted)
	sort.Slice(f.Presses, func(a, b int) bool { return f.Presses[a] < f.Presses[b] })
	return f
}
