package mqtt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
)

// TestCursorAheadOfJournalKeepsSeqsUnique: the broker acknowledged seq 7
// but the journal ends at seq 5 (its newest records lost: restored from
// a backup, or a damaged last record cut at start). Until review22j the
// publisher set its cursor back to 5 and the next record took seq 6, an
// id consumers already had and drop as a re-delivery: a decision lost.
// NewPublisher now journals a journal_damaged event at seqs 6 and 7 (the
// ids consumers had), and the next record is seq 8.
func TestCursorAheadOfJournalKeepsSeqsUnique(t *testing.T) {
	j, err := journal.Open(t.TempDir(), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for i := 0; i < 5; i++ {
		if _, err := j.Append("roll", time.Unix(1700000000, 0), map[string]any{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	state := t.TempDir()
	if err := os.WriteFile(filepath.Join(state, cursorFile), []byte(cursorLine(7, j.Epoch())), 0o640); err != nil {
		t.Fatal(err)
	}
	p, err := NewPublisher(testConfig("tcp://127.0.0.1:1", state), j, Birth{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Acked() != 7 {
		t.Errorf("acked %d, want 7 (the broker has 6 and 7)", p.Acked())
	}
	rec, err := j.Append("roll", time.Unix(1700000100, 0), map[string]any{"n": 99})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Seq != 8 {
		t.Fatalf("the next record took seq %d (%s), which the broker already acknowledged; want 8", rec.Seq, rec.ID)
	}
	r := j.Reader(6)
	defer r.Close()
	for seq := uint64(6); seq <= 7; seq++ {
		got, err := r.Next()
		if err != nil || got.Seq != seq || got.Kind != "event" || !strings.Contains(string(got.Body), journal.DamagedEvent) {
			t.Errorf("seq %d: %+v %v, want a %s event", seq, got, err, journal.DamagedEvent)
		}
	}
}
