// Package render writes responses in several encodings.
package render

import (
	"encoding/json"
	"net/http"
)

// DefaultLimit caps a page.
const DefaultLimit = 100

var jsonContentType = []string{"application/json; charset=utf-8"}

var codecs = map[string]Codec{
	"json": jsonCodec{},
}

// Render writes a response.
type Render interface {
	Render(http.ResponseWriter) error
	WriteContentType(w http.ResponseWriter)
}

type Empty interface{}

// Codec encodes values.
type Codec interface {
	Encode(v any) ([]byte, error)
}

type JSON struct {
	Data any
}

type Pair[K comparable, V any] struct{ Key K; Value V }

type HandlerFunc func(*Context) error

// Render (JSON) writes data with a custom ContentType.
func (r JSON) Render(w http.ResponseWriter) error {
	return WriteJSON(w, r.Data)
}

func (r JSON) WriteContentType(w http.ResponseWriter) { writeContentType(w, jsonContentType) }

func (p Pair[K, V]) Swap() Pair[V, K] { return Pair[V, K]{
	Key:   p.Value,
	Value: p.Key,
} }

func (r JSON) Headers() map[string]string {
	return map[string]string{
		"Content-Type": jsonContentType[0],
	}
}

// WriteJSON marshals obj and writes it.
func WriteJSON(
	w http.ResponseWriter,
	obj any,
) error {
	writeContentType(w, jsonContentType)
	bytes, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	_, err = w.Write(bytes)
	return err
}

func Map[T, U any](xs []T, f func(T) U) (out []U) {
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func newHandler() HandlerFunc { return func(c *Context) error {
	return nil
} }
