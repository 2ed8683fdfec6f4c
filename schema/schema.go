// Package schema holds the JSON Schema (draft 2020-12 subset) of every MQTT
// payload dicewatch publishes or accepts, and a small validator for the
// subset the files use. The files are the contract; this package lets tests
// (and consumers written in Go) check payloads against them.
//
// Files: <name>.v<N>.json where name is status, roll, noroll, state, event,
// snapshot, cmd (the signed envelope on cmd/<command>) and cmd-payload (the
// signed content), and N its version. A payload's "schema" field,
// dicewatch/<name>/v<N>, names its file. A published version is never
// edited: a change to a contract is a new file with the next N, and the
// older files stay for consumers still on them (status has v1 and v2).
//
// Supported keywords: type (string or list), enum, const, required,
// properties, additionalProperties (bool or schema), items, minItems,
// maxItems, minimum, maximum, minLength, maxLength, pattern, format
// ("date-time": RFC 3339 in UTC with a Z), $ref to "#/$defs/NAME", allOf,
// and the annotations $schema, $id, $defs, title, description, examples.
// An unknown keyword is an error, so a schema cannot silently use more than
// is checked.
package schema

import (
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

//go:embed *.json
var files embed.FS

// Names lists the schema names (file name without ".v<N>.json"), each once.
func Names() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range fileNames() {
		n, _, _ := splitFile(f)
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Versions lists every schema file as <name>.v<N> (file name without
// ".json"), sorted: the names Raw and ValidateAs take for one version.
func Versions() []string {
	var out []string
	for _, f := range fileNames() {
		out = append(out, strings.TrimSuffix(f, ".json"))
	}
	sort.Strings(out)
	return out
}

// Latest returns the newest version of a schema (0 if there is none): the
// one dicewatch publishes.
func Latest(name string) int {
	best := 0
	for _, f := range fileNames() {
		if n, v, ok := splitFile(f); ok && n == name && v > best {
			best = v
		}
	}
	return best
}

func fileNames() []string {
	ents, _ := files.ReadDir(".")
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// splitFile parses <name>.v<N>.json.
func splitFile(f string) (name string, version int, ok bool) {
	base := strings.TrimSuffix(f, ".json")
	i := strings.LastIndex(base, ".v")
	if i < 0 {
		return base, 0, false
	}
	v, err := strconv.Atoi(base[i+2:])
	if err != nil || v < 1 {
		return base, 0, false
	}
	return base[:i], v, true
}

// fileOf maps a schema name to its file: <name>.v<N> is that version,
// a bare <name> the newest.
func fileOf(name string) string {
	if _, _, ok := splitFile(name + ".json"); ok {
		return name + ".json"
	}
	return fmt.Sprintf("%s.v%d.json", name, max(Latest(name), 1))
}

// Raw returns a schema file's bytes. name is <name>.v<N> for one version
// or <name> for the newest.
func Raw(name string) ([]byte, error) {
	b, err := files.ReadFile(fileOf(name))
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return b, nil
}

var (
	cacheMu sync.Mutex
	cache   = map[string]map[string]any{}
)

func load(name string) (map[string]any, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if s, ok := cache[name]; ok {
		return s, nil
	}
	b, err := Raw(name)
	if err != nil {
		return nil, err
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("schema: %s: %w", name, err)
	}
	cache[name] = s
	return s, nil
}

// Validate checks a payload against the schema and version its "schema"
// field names (dicewatch/<name>/v<N>).
func Validate(payload []byte) error {
	var env struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(payload, &env); err != nil {
		return fmt.Errorf("schema: payload: %w", err)
	}
	rest, ok := strings.CutPrefix(env.Schema, "dicewatch/")
	i := strings.LastIndex(rest, "/v")
	if !ok || i < 1 {
		return fmt.Errorf("schema: payload schema %q is not dicewatch/<name>/v<N>", env.Schema)
	}
	name, ver := rest[:i], rest[i+2:]
	if v, err := strconv.Atoi(ver); err != nil || v < 1 || strconv.Itoa(v) != ver || strings.ContainsAny(name, "/.") {
		return fmt.Errorf("schema: payload schema %q is not dicewatch/<name>/v<N>", env.Schema)
	}
	return ValidateAs(name+".v"+ver, payload)
}

// ValidateAs checks a payload against the named schema: <name>.v<N> for one
// version, or <name> for the newest.
func ValidateAs(name string, payload []byte) error {
	s, err := load(name)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(string(payload)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("schema: %s: payload: %w", name, err)
	}
	if err := (&validator{root: s}).check(s, v, "$"); err != nil {
		return fmt.Errorf("schema: %s: %w", name, err)
	}
	return nil
}

type validator struct{ root map[string]any }

var annotations = map[string]bool{"$schema": true, "$id": true, "$defs": true, "title": true, "description": true, "examples": true, "$comment": true}

func (v *validator) check(s map[string]any, x any, path string) error {
	for k := range s {
		switch k {
		case "type", "enum", "const", "required", "properties", "additionalProperties", "items",
			"minItems", "maxItems", "minimum", "maximum", "minLength", "maxLength", "pattern", "format", "$ref", "allOf":
		default:
			if !annotations[k] {
				return fmt.Errorf("%s: unsupported schema keyword %q", path, k)
			}
		}
	}
	if ref, ok := s["$ref"].(string); ok {
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			return fmt.Errorf("%s: unsupported $ref %q", path, ref)
		}
		defs, _ := v.root["$defs"].(map[string]any)
		d, ok := defs[name].(map[string]any)
		if !ok {
			return fmt.Errorf("%s: $ref %q not found", path, ref)
		}
		if err := v.check(d, x, path); err != nil {
			return err
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, a := range all {
			sub, ok := a.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: allOf item is not a schema", path)
			}
			if err := v.check(sub, x, path); err != nil {
				return err
			}
		}
	}
	if t, ok := s["type"]; ok {
		if err := checkType(t, x, path); err != nil {
			return err
		}
	}
	if c, ok := s["const"]; ok && !equal(c, x) {
		return fmt.Errorf("%s: %s is not %v", path, show(x), c)
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, c := range e {
			if equal(c, x) {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("%s: %s is not one of %v", path, show(x), e)
		}
	}
	switch x := x.(type) {
	case map[string]any:
		return v.object(s, x, path)
	case []any:
		if n, ok := num(s["minItems"]); ok && float64(len(x)) < n {
			return fmt.Errorf("%s: %d items, want at least %v", path, len(x), n)
		}
		if n, ok := num(s["maxItems"]); ok && float64(len(x)) > n {
			return fmt.Errorf("%s: %d items, want at most %v", path, len(x), n)
		}
		if it, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				if err := v.check(it, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	case string:
		n := utf8.RuneCountInString(x)
		if m, ok := num(s["minLength"]); ok && float64(n) < m {
			return fmt.Errorf("%s: %q is shorter than %v", path, x, m)
		}
		if m, ok := num(s["maxLength"]); ok && float64(n) > m {
			return fmt.Errorf("%s: string is longer than %v", path, m)
		}
		if p, ok := s["pattern"].(string); ok {
			re, err := compile(p)
			if err != nil {
				return fmt.Errorf("%s: bad pattern: %w", path, err)
			}
			if !re.MatchString(x) {
				return fmt.Errorf("%s: %q does not match %s", path, x, p)
			}
		}
		if f, ok := s["format"].(string); ok {
			if err := checkFormat(f, x); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
	case json.Number:
		f, _ := x.Float64()
		if m, ok := num(s["minimum"]); ok && f < m {
			return fmt.Errorf("%s: %v is below %v", path, x, m)
		}
		if m, ok := num(s["maximum"]); ok && f > m {
			return fmt.Errorf("%s: %v is above %v", path, x, m)
		}
	}
	return nil
}

func (v *validator) object(s map[string]any, x map[string]any, path string) error {
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if _, ok := x[r.(string)]; !ok {
				return fmt.Errorf("%s: %q is required", path, r)
			}
		}
	}
	props, _ := s["properties"].(map[string]any)
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := path + "." + k
		if ps, ok := props[k].(map[string]any); ok {
			if err := v.check(ps, x[k], p); err != nil {
				return err
			}
			continue
		}
		switch ap := s["additionalProperties"].(type) {
		case bool:
			if !ap {
				return fmt.Errorf("%s: property not allowed", p)
			}
		case map[string]any:
			if err := v.check(ap, x[k], p); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkType(t any, x any, path string) error {
	var types []string
	switch t := t.(type) {
	case string:
		types = []string{t}
	case []any:
		for _, e := range t {
			types = append(types, e.(string))
		}
	}
	for _, want := range types {
		if typeOf(x) == want || (want == "number" && typeOf(x) == "integer") {
			return nil
		}
	}
	return fmt.Errorf("%s: %s is a %s, want %s", path, show(x), typeOf(x), strings.Join(types, " or "))
}

func typeOf(x any) string {
	switch x := x.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) && !strings.ContainsAny(x.String(), ".eE") {
			return "integer"
		}
		return "number"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

func num(x any) (float64, bool) {
	f, ok := x.(float64)
	return f, ok
}

func equal(schemaVal, x any) bool {
	if n, ok := x.(json.Number); ok {
		f, err := n.Float64()
		sv, ok := schemaVal.(float64)
		return err == nil && ok && f == sv
	}
	a, _ := json.Marshal(schemaVal)
	b, _ := json.Marshal(x)
	return string(a) == string(b)
}

func show(x any) string {
	b, _ := json.Marshal(x)
	if len(b) > 60 {
		return string(b[:60]) + "..."
	}
	return string(b)
}

var (
	reMu    sync.Mutex
	reCache = map[string]*regexp.Regexp{}
)

func compile(p string) (*regexp.Regexp, error) {
	reMu.Lock()
	defer reMu.Unlock()
	if re, ok := reCache[p]; ok {
		return re, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	reCache[p] = re
	return re, nil
}

func checkFormat(f, s string) error {
	switch f {
	case "date-time":
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return fmt.Errorf("%q is not an RFC 3339 date-time", s)
		}
		if !strings.HasSuffix(s, "Z") || t.Location() != time.UTC {
			return fmt.Errorf("%q is not in UTC (Z)", s)
		}
		return nil
	case "byte":
		return nil
	}
	return fmt.Errorf("unsupported format %q", f)
}
