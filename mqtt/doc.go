// Package mqtt publishes the journal to an MQTT broker (paho, imported as
// paho): topics, payload schema, birth and last will, retained state, and
// in-order QoS 1 delivery that resumes after restarts. It also takes in and
// verifies signed operator commands.
package mqtt
