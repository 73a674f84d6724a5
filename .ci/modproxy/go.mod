// The tool that builds the file-based module proxy of .ci/run's install
// check. A module of its own so that the root module gains no dependency;
// it is never imported or tagged.
module example.com/modproxy

go 1.26.0

require (
	go.uber.org/goleak v1.3.0
	golang.org/x/mod v0.43.0
)
