//go:build go1.23

//lint:file-ignore U1000 the README's block, compiled and never run

package readme_test

import (
	"context"
	"slices"

	"github.com/e62cffed/ants"
)

// The README's block that ranges over a function, which needs Go 1.23 (see
// TestReadmeCodeCompiles).
func readmeMap(ctx context.Context, p *ants.Pool) error {
	for page, err := range ants.Map(ctx, p, 64, slices.Values(urls), get) {
		if err != nil {
			return err // in order; leaving the loop cancels the rest
		}
		use(page)
	}
	return nil
}
