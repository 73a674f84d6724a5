module example.com/dropin

go 1.22

require github.com/e62cffed/ants v1.0.0

replace github.com/e62cffed/ants => ../..
