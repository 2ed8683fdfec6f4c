// Package mqtt publishes the journal to an MQTT broker (paho, imported as
// paho): topics, payload schema, birth and last will, retained state, and
// in-order QoS 1 delivery that resumes after restarts. It also takes in and
// verifies signed operator commands. The contract for consumers is
// README.md ("MQTT contract"); the payload schemas are in schema/.
//
// # Wiring
//
//	cfg.Table = table; cfg.SetDefaults()                 // after strict YAML decoding
//	problems := cfg.Problems()                           // []FieldError, keys like "mqtt.tls.ca"; or cfg.Validate()
//	p, err := mqtt.NewPublisher(cfg, j, mqtt.Birth{Version: v, ConfigHash: ch, CalibrationHash: calh}, log)
//	p.OnCommand(func(ctx context.Context, c mqtt.Command) error { ... }) // nil error: accepted
//	go p.Run(ctx)                                        // returns after ctx is cancelled (nil) or a journal error
//	rec, _ := j.Append("roll", ts, body); p.Notify()     // body fields merge into the payload
//
// Cancel Run's context (and wait for Run to return) before closing the
// journal: Run publishes the offline status and saves its cursor on the way
// out.
//
// # Delivery
//
// Run keeps one broker session at a time (fixed client id, clean session
// off, its own fresh in-memory paho store: the journal is the durable
// store, and paho's resend order is not guaranteed). On every connect it
// subscribes to <prefix>cmd/+, publishes the retained online status,
// republishes the newest retained state record before its resume point,
// and streams journal records in seq order from the acknowledged cursor
// minus Config.ResendOnReconnect, with up to Config.MaxInflight awaiting
// PUBACK. The cursor (highest seq acknowledged in order) is saved in
// Config.StateDir and handed to the journal's retention (SetDelivered).
//
// # Commands
//
// A command on <prefix>cmd/<name> is verified by Verifier (Ed25519 key from
// Config.Commands.Keys, table, topic, time window, role, nonce kept in a
// persisted NonceStore), passed to the OnCommand handler if valid, and its
// result (CommandResult) is journalled as an "event" record, which is
// published like any other. SignCommand and SendCommand are the sending
// side (dicewatch cmd).
package mqtt
