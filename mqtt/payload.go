package mqtt

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"

	"github.com/dicewatch/dicewatch/journal"
)

// Schema returns the schema id published in a payload of this kind, for
// example "dicewatch/roll/v1". The JSON Schema file is
// schema/<kind>.v<N>.json: v1 for every kind but status.
func Schema(kind string) string {
	if kind == "status" {
		return StatusSchema
	}
	return "dicewatch/" + kind + "/v1"
}

// StatusSchema is the schema id of status payloads (birth, will, shutdown
// and journal_damaged alike). v2 since session 21: v1 had no reason
// journal_damaged and no detail, and a consumer validating strictly
// against v1 rejects a payload that has them.
const StatusSchema = "dicewatch/status/v2"

// Birth is what the retained online status says about this daemon.
type Birth struct {
	Version         string `json:"version"`
	ConfigHash      string `json:"config_hash"`
	CalibrationHash string `json:"calibration_hash"`
}

// Status is the retained payload on <prefix>status. It is not a journal
// record, so it has no seq; last_seq is the newest journal seq when it was
// made and id is unique per message.
type Status struct {
	Schema          string `json:"schema"`
	Table           string `json:"table"`
	ID              string `json:"id"`
	TS              string `json:"ts"`
	Status          string `json:"status"` // online or offline
	Version         string `json:"version,omitempty"`
	ConfigHash      string `json:"config_hash,omitempty"`
	CalibrationHash string `json:"calibration_hash,omitempty"`
	ClientID        string `json:"client_id"`
	LastSeq         uint64 `json:"last_seq"`
	// Reason says why offline: "shutdown" (published by the daemon),
	// "connection_lost" (the broker's last will) or "journal_damaged"
	// (the daemon stopped on a journal record it cannot read: it stays
	// offline until a person repairs the journal).
	Reason string `json:"reason,omitempty"`
	// Detail says more, for journal_damaged: which record, and what to do.
	Detail string `json:"detail,omitempty"`
}

// Offline reasons (Status.Reason).
const (
	ReasonShutdown       = "shutdown"
	ReasonConnectionLost = "connection_lost"
	ReasonJournalDamaged = "journal_damaged"
)

// TSFormat is the timestamp format of every payload: RFC 3339, UTC,
// millisecond precision.
const TSFormat = "2006-01-02T15:04:05.000Z07:00"

// Encode returns the outbound payload of a journal record: the envelope
// (schema, table, seq, id, ts) merged with the record's body.
func Encode(table string, r journal.Record) []byte {
	var b bytes.Buffer
	b.Grow(96 + len(r.Body))
	b.WriteString(`{"schema":`)
	writeJSONString(&b, Schema(r.Kind))
	b.WriteString(`,"table":`)
	writeJSONString(&b, table)
	b.WriteString(`,"seq":`)
	b.WriteString(strconv.FormatUint(r.Seq, 10))
	b.WriteString(`,"id":`)
	writeJSONString(&b, r.ID)
	b.WriteString(`,"ts":"`)
	b.WriteString(r.TS.UTC().Format(TSFormat))
	b.WriteByte('"')
	body := bytes.TrimSpace(r.Body)
	if len(body) > 2 {
		b.WriteByte(',')
		b.Write(body[1:])
	} else {
		b.WriteByte('}')
	}
	return b.Bytes()
}

func writeJSONString(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s)
	b.Write(q)
}

func formatTS(t time.Time) string { return t.UTC().Format(TSFormat) }

func randomID(n int) string {
	raw := make([]byte, n)
	if _, err := rand.Read(raw); err != nil {
		panic("mqtt: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(raw)
}

// marshalNoEscape is json.Marshal without HTML escaping and without the
// trailing newline.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Snapshot is the journal body of a "snapshot" record: the JPEG of the
// frame that decided a roll, referenced by the decision's record id.
type Snapshot struct {
	DecisionID  string `json:"decision_id"`
	ContentType string `json:"content_type"` // "image/jpeg"
	JPEG        []byte `json:"jpeg"`         // base64 in JSON
	Width       int    `json:"width,omitempty"`
	Height      int    `json:"height,omitempty"`
}

// NewSnapshot builds a snapshot body for a decision record.
func NewSnapshot(decision journal.Record, jpeg []byte, width, height int) Snapshot {
	return Snapshot{DecisionID: decision.ID, ContentType: "image/jpeg", JPEG: jpeg, Width: width, Height: height}
}
