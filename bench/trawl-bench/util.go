package main

import (
	"log"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/trawlhq/trawl/core/billing"
)

func runtimeGOMAXPROCS() int { return runtime.GOMAXPROCS(0) }

func replaceDB(admin, name string) string {
	u, err := url.Parse(admin)
	if err != nil {
		return admin
	}
	u.Path = "/" + name
	return u.String()
}

// liftedPlans is the default plan table with the per-minute limits of the
// given groups (every group when none is given) lifted out of the way.
func liftedPlans(groups ...string) billing.Plans {
	if len(groups) == 0 {
		groups = billing.RateGroups
	}
	list := billing.DefaultPlanList()
	for _, p := range list {
		for _, g := range groups {
			p.PerMinute[g] = 1 << 30
		}
	}
	plans, err := billing.NewPlans(list)
	if err != nil {
		panic(err)
	}
	return plans
}

// buildTrawl builds the trawl binary of the working tree into a new
// temporary directory (named from prefix): the directory, for the caller
// to remove, and the binary's path.
func buildTrawl(prefix string) (work, bin string) {
	work, err := os.MkdirTemp("", prefix)
	if err != nil {
		log.Fatal(err)
	}
	bin = filepath.Join(work, "trawl")
	if out, err := exec.Command("go", "build", "-o", bin, "./app/cmd/trawl").CombinedOutput(); err != nil {
		os.RemoveAll(work)
		log.Fatalf("go build: %v\n%s", err, out)
	}
	return work, bin
}
