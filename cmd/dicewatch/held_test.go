package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
)

// journalled lists a fake journal's records as "kind:name" (name: the
// body's "n", or the fault's state), and returns the bodies decoded.
func journalled(t *testing.T, j *fullJournal) ([]string, []map[string]any) {
	t.Helper()
	var out []string
	var bodies []map[string]any
	for i, r := range j.recs {
		raw, err := json.Marshal(j.bodies[i])
		if err != nil {
			t.Fatal(err)
		}
		var b map[string]any
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
		name := fmt.Sprint(b["n"])
		if b["event"] == "fault" {
			name = fmt.Sprint(b["what"], "-", b["state"])
		}
		out = append(out, r.Kind+":"+name)
		if i > 0 && r.Seq != j.recs[i-1].Seq+1 {
			t.Errorf("seq %d after %d", r.Seq, j.recs[i-1].Seq)
		}
	}
	return out, bodies
}

// TestHoldQueue: records the journal refuses are held in order with their
// own times and bodies, the journal fault is raised once (saying how many
// are held) when the journal takes records again, the held records follow
// even when the disk fills again half-way, and the fault is cleared only
// after the last of them, before any later record.
func TestHoldQueue(t *testing.T) {
	j := &fullJournal{}
	clock := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	q := newHoldQueue(j, func() time.Time { return clock })
	var opened, closed int
	q.opened = func(error) { opened++ }
	q.closed = func() { closed++ }
	put := func(n string) (bool, uint64) {
		t.Helper()
		clock = clock.Add(time.Second)
		body := map[string]any{"n": n}
		_, written, last, err := q.put(heldRecord{kind: "event", ts: clock, body: body, what: "event " + n})
		if err != nil {
			t.Fatal(err)
		}
		if !written {
			body["n"] = "changed after put" // a held record keeps what it was given
		}
		return written, last
	}
	if ok, _ := put("a"); !ok {
		t.Fatal("a not written with room")
	}
	j.full = true
	for _, n := range []string{"b", "c", "d"} {
		if ok, _ := put(n); ok {
			t.Fatalf("%s written on a full disk", n)
		}
	}
	if opened != 1 || q.heldCount() != 3 {
		t.Fatalf("opened %d times, %d held; want 1, 3", opened, q.heldCount())
	}
	// Room for two: the fault raised and b; c is refused again.
	j.room = 2
	last, err := q.retry(true)
	if err != nil {
		t.Fatal(err)
	}
	if last != 3 || q.heldCount() != 2 {
		t.Fatalf("retry wrote up to seq %d with %d held; want 3 (raised, b), 2 held", last, q.heldCount())
	}
	if ok, _ := put("e"); ok {
		t.Fatal("e written before the held c and d")
	}
	j.full = false
	ok, last := put("f")
	if !ok || last != 8 {
		t.Fatalf("f written %v, last seq %d; want written, 8", ok, last)
	}
	got, bodies := journalled(t, j)
	want := []string{"event:a", "event:journal-raised", "event:b", "event:c", "event:d", "event:e", "event:journal-cleared", "event:f"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("journalled %v\nwant %v", got, want)
	}
	if d := fmt.Sprint(bodies[1]["detail"]); !strings.HasPrefix(d, "3 records held") || !strings.Contains(d, "no space left") {
		t.Errorf("raised detail %q: want how many are held and the error", d)
	}
	start := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	for i, n := range []string{"a", "", "b", "c", "d", "e", "", "f"} {
		if n == "" {
			continue
		}
		k := int(n[0]-'a') + 1
		if ts := j.recs[i].TS; !ts.Equal(start.Add(time.Duration(k) * time.Second)) {
			t.Errorf("%s journalled with ts %s, not the time it was made", n, ts)
		}
	}
	if opened != 1 || closed != 1 {
		t.Errorf("fault opened %d, closed %d times; want 1, 1", opened, closed)
	}
}

// TestHoldQueueBounds: past the record or byte bound a record is dropped,
// not held, and named in the fault; a snapshot whose decision was dropped
// is dropped with it; what was held is still journalled in order.
func TestHoldQueueBounds(t *testing.T) {
	j := &fullJournal{full: true}
	q := newHoldQueue(j, time.Now)
	q.maxRecords, q.maxBytes = 4, 1000
	var dropped []string
	q.dropped = func(kind, what string, err error) { dropped = append(dropped, what) }
	put := func(h heldRecord) {
		t.Helper()
		if _, ok, _, err := q.put(h); err != nil || ok {
			t.Fatalf("put %s: written %v, %v", h.what, ok, err)
		}
	}
	put(heldRecord{kind: "roll", ts: time.Now(), body: map[string]any{"n": "r1"}, what: "roll r1"})
	// Too big for the byte budget: dropped, and its snapshot with it.
	big := &recRef{what: "roll big"}
	put(heldRecord{kind: "roll", ts: time.Now(), body: map[string]any{"n": strings.Repeat("x", 2000)}, what: big.what,
		written: func(r journal.Record) { big.rec, big.ok = r, true }})
	put(snapshotRecord(time.Now(), big, []byte("jpeg"), 4, 4))
	put(heldRecord{kind: "state", ts: time.Now(), body: map[string]any{"n": "s1"}, what: "state s1"})
	put(heldRecord{kind: "event", ts: time.Now(), body: map[string]any{"n": "e1"}, what: "event e1"})
	// Four held (r1, the snapshot, s1, e1): past the record bound.
	put(heldRecord{kind: "event", ts: time.Now(), body: map[string]any{"n": "e2"}, what: "event e2"})
	if q.heldCount() != 4 {
		t.Fatalf("%d held, want 4", q.heldCount())
	}
	j.full = false
	if _, err := q.retry(true); err != nil {
		t.Fatal(err)
	}
	got, bodies := journalled(t, j)
	want := []string{"event:journal-raised", "roll:r1", "snapshot:<nil>", "state:s1", "event:e1", "event:journal-cleared"}
	// The snapshot is held (its decision's fate is known only when it is
	// written) and dropped then: it is not journalled.
	want = append(want[:2], want[3:]...)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("journalled %v\nwant %v", got, want)
	}
	if big.ok {
		t.Error("the dropped decision was journalled")
	}
	d := fmt.Sprint(bodies[0]["detail"])
	if !strings.Contains(d, "2 lost") || !strings.Contains(d, "roll big") || !strings.Contains(d, "event e2") {
		t.Errorf("raised detail %q does not name what was lost (roll big, event e2)", d)
	}
	if c := fmt.Sprint(bodies[len(bodies)-1]["detail"]); !strings.Contains(c, "snapshot of roll big") {
		t.Errorf("cleared detail %q does not name the snapshot dropped with its decision", c)
	}
	if len(dropped) != 3 {
		t.Errorf("dropped %v, want roll big, event e2 and the snapshot of roll big", dropped)
	}
}

// TestHoldQueueLateLossRaisesOwnFault: a snapshot whose decision was lost
// past the bounds, coming after the journal fault was cleared, opens a
// fault of its own: raised (naming it), then cleared. Before, only a
// second cleared was journalled, for a fault already cleared.
func TestHoldQueueLateLossRaisesOwnFault(t *testing.T) {
	j := &fullJournal{full: true}
	q := newHoldQueue(j, time.Now)
	q.maxRecords = 1
	put := func(h heldRecord) {
		t.Helper()
		if _, _, _, err := q.put(h); err != nil {
			t.Fatal(err)
		}
	}
	put(heldRecord{kind: "roll", ts: time.Now(), body: map[string]any{"n": "r1"}, what: "roll r1"})
	lost := &recRef{what: "roll r2"}
	put(heldRecord{kind: "roll", ts: time.Now(), body: map[string]any{"n": "r2"}, what: lost.what, ref: lost})
	j.full = false
	if _, err := q.retry(true); err != nil {
		t.Fatal(err)
	}
	put(snapshotRecord(time.Now(), lost, []byte("jpeg"), 4, 4))
	if _, err := q.retry(true); err != nil {
		t.Fatal(err)
	}
	got, bodies := journalled(t, j)
	want := []string{"event:journal-raised", "roll:r1", "event:journal-cleared", "event:journal-raised", "event:journal-cleared"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("journalled %v\nwant %v", got, want)
	}
	if d := fmt.Sprint(bodies[3]["detail"]); !strings.Contains(d, "snapshot of roll r2") {
		t.Errorf("the second fault's raised detail %q does not name the lost snapshot", d)
	}
}
