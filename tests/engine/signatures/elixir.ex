defmodule Plug.Conn.Utils do
  @moduledoc """
  Utilities for working with connection data.
  """

  @type params :: %{optional(binary) => term}

  @max_length 4096

  @doc "Parses a media type."
  @spec media_type(binary) :: {:ok, binary, binary, params} | :error
  def media_type(binary) when is_binary(binary) do
    case strip_spaces(binary) do
      "*/*" <> t -> mt_params(t, "*/*", "*", "*")
      t -> mt_first(t, "")
    end
  end

  def params(binary), do: params(binary, %{})

  defp params(binary, acc),
    do: Enum.reduce(:binary.split(binary, ";", [:global]), acc, &param/2)

  def validate_utf8!(binary, exception, context)
      when is_binary(binary) do
    do_validate_utf8!(binary, exception, context)
  end

  defp strip_spaces(" " <> t), do: strip_spaces(t)
  defp strip_spaces(t), do: t

  def headers(conn) do %{
      "content-type" => conn.content_type,
    }
  end

  defmacro is_token(char) do
    quote do
      unquote(char) in ?a..?z
    end
  end

  defprotocol Sized do
    @doc "The size of a value."
    def size(value)
  end

  defimpl Sized, for: Map do
    def size(map), do: map_size(map)
  end

  defmodule Error do
    defexception [:message]
  end
end
