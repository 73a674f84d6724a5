module github.com/e62cffed/ants

go 1.22

require go.uber.org/goleak v1.3.0

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
