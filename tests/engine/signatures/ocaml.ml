(* URIs as values. *)

type t = {
  scheme : string option;
  host : string option;
  path : string;
}

exception Parse_error of string

let empty = { scheme = None; host = None; path = "" }

let max_length = 2048

let with_path t path = { t with path }

let to_assoc t =
  [ ("scheme", t.scheme); ("host", t.host) ]

let sexp_of_t t =
  sexp_of_t {
    scheme = t.scheme;
    host = t.host;
    path = t.path;
  }

let rec pct_decode s i acc =
  if i >= String.length s then acc
  else pct_decode s (i + 1) (acc ^ String.make 1 s.[i])

let compare_opt cmp a b = match a, b with
  | None, None -> 0
  | Some a, Some b -> cmp a b
  | None, _ -> -1
  | _, None -> 1

module Query = struct
  type t = (string * string list) list

  let of_list l = List.map (fun (k, v) -> (k, [ v ])) l

  let to_string q = String.concat "&" (List.map fst q)
end

module type PRINTER = sig
  val pp : Format.formatter -> t -> unit
end

let () =
  print_endline (Query.to_string [])
