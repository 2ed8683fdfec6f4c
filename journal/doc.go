// Package journal is dicewatch's durable, append-only, fsync'd log of every
// decision, game event, fault and command result, with a per-table sequence
// number that never repeats across restarts. It is the source of truth for
// publishing and for game recall.
package journal
