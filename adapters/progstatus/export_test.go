package progstatus

// AppName is appName, for the tests of package progstatus_test.
var AppName = appName

// Encode is encode over key, value, key, value...; a "msg" value is text.
func Encode(kvs ...string) ([]byte, error) {
	var pairs []pair
	for i := 0; i+1 < len(kvs); i += 2 {
		pairs = append(pairs, pair{key: kvs[i], value: kvs[i+1], text: kvs[i] == "msg"})
	}
	return encode(pairs...)
}

// WrapTmux is wrapTmux.
var WrapTmux = wrapTmux
