package changes_test

import (
	"fmt"
	"testing"

	"github.com/trawlhq/trawl/core/changes"
)

func TestDecide(t *testing.T) {
	for _, c := range []struct {
		name          string
		found         bool
		previous, cur string
		want          string
	}{
		{"first time", false, "", "# A\n", changes.StatusNew},
		{"same text", true, "# A\n\nBody.\n", "# A\n\nBody.\n", changes.StatusSame},
		{"line endings and trailing spaces", true, "# A  \r\n\r\nBody.\r\n", "# A\n\nBody.", changes.StatusSame},
		{"more blank lines", true, "# A\n\nBody.\n", "# A\n\n\n\nBody.\n", changes.StatusSame},
		{"a word changed", true, "Price: 10\n", "Price: 12\n", changes.StatusChanged},
	} {
		if got := changes.Decide(c.found, c.previous, c.cur); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestFieldsIgnoreKeyOrder(t *testing.T) {
	prev := []byte(`{"name":"Pro","price":{"amount":20,"currency":"EUR"},"features":["a","b"],"gone":1}`)
	same := []byte(`{"features":["a","b"],"gone":1,"price":{"currency":"EUR","amount":20},"name":"Pro"}`)
	if f := changes.Fields(prev, same); len(f) != 0 {
		t.Fatalf("reordered keys: %v, want no change", f)
	}
	cur := []byte(`{"price":{"currency":"EUR","amount":25},"name":"Pro","features":["b","a"],"new":true}`)
	f := changes.Fields(prev, cur)
	if got := fmt.Sprint(len(f), f["price"].Current, f["features"].Previous, f["gone"].Current, f["new"].Previous); got != "4 map[amount:25 currency:EUR] [a b] <nil> <nil>" {
		t.Fatalf("fields = %v", f)
	}
	if _, ok := f["name"]; ok {
		t.Fatal("an unchanged field is listed")
	}
}
