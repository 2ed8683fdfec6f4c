// Package journal is dicewatch's durable, append-only, fsync'd log of every
// decision, game event, fault and command result, with a per-table sequence
// number that never repeats across restarts. It is the source of truth for
// publishing and for game recall.
//
// # API
//
//	j, err := journal.Open(dir, journal.Options{})        // recovers a torn tail, takes an exclusive lock
//	rec, err := j.Append("roll", now, decision)            // next seq, stable id, CRC, fdatasync before return
//	rec, err := j.AppendNoWait("roll", now, decision)      // same, returns before the fdatasync
//	err = j.WaitDurable(rec.Seq)                           // returns once rec is on stable storage
//	r := j.Reader(from)                                     // records with Seq >= from, in order
//	rec, err := r.Next()                                    // io.EOF when caught up; wait on j.Changed()
//	j.SetDelivered(seq)                                     // retention never drops a record above this
//	err = j.Close()
//
// Kinds used by the daemon: "roll", "noroll", "event", "state" (published
// retained) and "snapshot". A body must marshal to a JSON object and must not
// use the envelope keys schema, table, seq, id, ts or kind: the MQTT payload is
// the envelope merged with the body.
//
// # Durability and group commit
//
// One syncer goroutine per journal makes written records durable: it
// fdatasyncs the active segment once for every record written since its
// last sync, so a producer that appends with AppendNoWait is not held to
// one record per fdatasync, and concurrent Append callers share syncs. A
// record becomes visible (Reader, LastSeq, Changed, LastOfKind) only
// after its sync, so everything published from the journal is on stable
// storage first; a crash before the sync loses only records nobody saw.
// A failed sync fails the journal for good (the sticky error is returned
// by every later append, by WaitDurable and by Close): after a failed
// fdatasync the kernel may have dropped the dirty pages, so retrying could
// report records durable that are not. A failed write (a full disk) does
// not: the partial frame is cut off, the append returns ErrNotWritten
// with no seq taken, and a later append succeeds once there is room. Only
// if the cut fails too is the journal failed for good. Close makes one last
// sync of anything written; Open syncs the recovered tail of the newest
// segment before treating it as durable, since a process killed between
// write and sync leaves valid-looking frames in the page cache.
//
// For read-only use while a daemon holds the journal (dicewatch history),
// use ReadDir, which takes no lock and ignores a torn tail.
//
// # On disk
//
// A journal directory holds journal.id (a random epoch that prefixes every
// record id), LOCK, and segment files seg-<first seq, 20 digits>.log. A
// segment is a sequence of frames: a little-endian uint32 payload length, a
// little-endian uint32 CRC-32C of the payload, and the payload, the record as
// JSON. Open checks the newest segment frame by frame and truncates it at the
// first frame that is short, fails its checksum, does not decode, or does not
// carry the next seq: that is a write torn by a crash, which was never
// acknowledged, so cutting it loses nothing that was published. Damage
// that a crash does not leave is not cut: whole records after the bad
// frame, a last record whole in length that fails its checksum, a last
// record whose whole JSON follows a damaged length header (not a header
// that reads as zeros up to a sector boundary, which a power cut leaves
// when that block was not written: cut as torn), and a damaged journal.id
// or one missing while records are held make Open return ErrCorrupt and
// change nothing; Check reports them and Repair mends them.
//
// # Retention
//
// Options.MaxBytes and Options.MaxAge bound the journal. Whole segments, never
// the active one, are dropped oldest first when over a limit, but only once
// every record in them is at or below the delivered mark (SetDelivered); the
// drop is itself journalled as an "event" record with event "journal_pruned".
package journal
