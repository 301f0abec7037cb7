%% Cowboy request helpers.
-module(cowboy_req).

-export([method/1, parse_header/2, binding/2]).

-define(MAX_HEADERS, 100).
-define(IS_TOKEN(C), (C >= $a andalso C =< $z)).

-record(req, {
    method = <<"GET">> :: binary(),
    headers = #{} :: map()
}).

-type req() :: #req{}.

-spec method(req()) -> binary().
method(#req{method = Method}) ->
    Method.

parse_header(Name, Req) -> parse_header(Name, Req, undefined).

parse_header(Name, #req{headers = Headers}, Default)
        when is_binary(Name) ->
    case maps:get(Name, Headers, undefined) of
        undefined -> Default;
        Value -> cow_http_hd:parse(Name, Value)
    end.

binding(Name, #{bindings := Bindings}) when is_atom(Name) -> maps:get(Name, Bindings, #{
    default => undefined
});
binding(_, _) ->
    undefined.

-spec to_map(req()) -> map().
to_map(Req) -> #{
    method => Req#req.method
}.
