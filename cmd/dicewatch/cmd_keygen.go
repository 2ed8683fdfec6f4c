package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/dicewatch/dicewatch/mqtt"
)

// cmdKeygen makes an operator Ed25519 key pair: the private key goes to a
// new file (mode 0600) and the config entry with the public key is printed:
//
//	dicewatch keygen --out box-1.key --id box-1 --operator E1234 --role boxperson
func cmdKeygen(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("keygen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "private key file to create (required; never overwritten)")
	id := fs.String("id", "", "key id for the config (required)")
	operator := fs.String("operator", "", "operator id (employee number) for the config")
	role := fs.String("role", "", "role for the config, e.g. boxperson")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || *id == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: dicewatch keygen --out FILE --id KEY_ID [--operator ID] [--role ROLE]")
		return 2
	}
	pub, priv, err := mqtt.GenerateKey()
	if err != nil {
		fmt.Fprintf(stderr, "dicewatch keygen: %v\n", err)
		return 1
	}
	if err := mqtt.WritePrivateKey(*out, priv); err != nil {
		fmt.Fprintf(stderr, "dicewatch keygen: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "dicewatch keygen: private key written to %s (keep it secret); add this to mqtt.commands.keys:\n", *out)
	fmt.Fprintf(stdout, "- id: %q\n  operator: %q\n  role: %q\n  public_key: %q\n", *id, *operator, *role, mqtt.EncodePublicKey(pub))
	return 0
}
