//go:build unix

package journal

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/dicewatch/dicewatch/journal/journaltest"
)

// TestRepairAsRootKeepsOwner: a repair run as root (sudo dicewatch journal
// repair, rather than sudo -u dicewatch) leaves the repaired segment and
// the folder aside owned as the journal was, so the daemon's own user can
// still open the newest segment for writing. Needs root.
func TestRepairAsRootKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the journal another owner")
	}
	dir := t.TempDir()
	markedJournal(t, dir, 30)
	const uid, gid = 65534, 65534 // nobody
	if err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	}); err != nil {
		t.Fatal(err)
	}
	if err := journaltest.Damage(dir, "rec-03"); err != nil {
		t.Fatal(err)
	}
	rr, err := Repair(dir, t0)
	if err != nil || rr.Replaced != 1 {
		t.Fatalf("Repair: %+v %v", rr, err)
	}
	seg := mustSeg(t, dir, "rec-02")
	for _, p := range []string{seg, filepath.Join(dir, DamagedDir), filepath.Join(dir, rr.Aside)} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st := info.Sys().(*syscall.Stat_t); st.Uid != uid || st.Gid != gid {
			t.Errorf("%s is owned by %d:%d after the repair, want %d:%d", p, st.Uid, st.Gid, uid, gid)
		}
	}
}
