package main

import (
	"encoding/json"
	"fmt"
	"os"
)

func jsonField(path, key string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	v, ok := m[key]
	if !ok {
		return "<missing>", nil
	}
	if v == nil {
		return "null", nil
	}
	return fmt.Sprint(v), nil
}
