module github.com/dashlab/dashlab

go 1.26

require gopkg.in/yaml.v3 v3.0.1

require (
	github.com/go-echarts/go-echarts/v2 v2.6.7 // indirect
	github.com/kr/pretty v0.1.0 // indirect
	golang.org/x/tools v0.30.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
	gopkg.in/check.v1 v1.0.0-20180628173108-788fd7840127 // indirect
)
