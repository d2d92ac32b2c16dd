package schema_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/adapters/schema"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/structured"
)

func TestCompileRefusesOutsideReferences(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.json")
	if err := os.WriteFile(p, []byte(`{"type":"string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"file://" + p, "http://127.0.0.1:1/s.json"} {
		_, err := schema.New().Compile([]byte(`{"$ref":"` + ref + `"}`))
		err = structured.SchemaFailure(err, "schema") // as core words it
		if !failure.Is(err, failure.Invalid) || failure.FieldNames(err)[0] != "schema" {
			t.Errorf("%s: %v", ref, err)
		}
	}
	// A reference inside the schema is followed.
	if _, err := schema.New().Compile([]byte(`{"$defs":{"n":{"type":"number"}},"properties":{"a":{"$ref":"#/$defs/n"}}}`)); err != nil {
		t.Errorf("local $ref: %v", err)
	}
}

func TestValidateSaysWhere(t *testing.T) {
	s, err := schema.New().Compile([]byte(`{"type":"object","required":["name"],"properties":{"price":{"type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	_ = json.Unmarshal([]byte(`{"price":"x"}`), &doc)
	probs := strings.Join(s.Validate(doc), "\n")
	if !strings.Contains(probs, "/price") || !strings.Contains(probs, "name") {
		t.Errorf("problems = %s", probs)
	}
	_ = json.Unmarshal([]byte(`{"name":"a","price":2}`), &doc)
	if p := s.Validate(doc); len(p) != 0 {
		t.Errorf("valid document: %v", p)
	}
}
