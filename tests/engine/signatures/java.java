package com.example.json;

import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and writes JSON with registered adapters.
 */
@SuppressWarnings("unchecked")
public final class Gson implements JsonSerializer {
  static final boolean DEFAULT_LENIENT = false;

  private static final Map<String, Integer> LIMITS = new HashMap<>() {{
    put("depth", 255);
  }};

  private static final FieldNamingStrategy UPPER = f -> f.getName().toUpperCase();

  private final Map<Type, TypeAdapter<?>> typeTokenCache;

  public Gson() {
    this(new HashMap<>(), DEFAULT_LENIENT);
  }

  Gson(Map<Type, TypeAdapter<?>> cache, boolean lenient) { this.typeTokenCache = cache; }

  @Override
  @Deprecated(since = "2.10", forRemoval = false)
  public <T> T fromJson(
      String json,
      Class<T> classOfT)
      throws JsonSyntaxException {
    return (T) fromJson(json, (Type) classOfT);
  }

  public Map<String, Object> describe() { return new HashMap<>() {{
    put("lenient", DEFAULT_LENIENT);
  }}; }

  @Override public String toString() { return "{serializeNulls:" + false + "}"; }

  public TypeAdapterFactory factory() {
    return new TypeAdapterFactory() {
      @Override
      public <T> TypeAdapter<T> create(Gson gson, TypeToken<T> type) {
        return null;
      }
    };
  }

  synchronized void clear() throws IllegalStateException
  {
    typeTokenCache.clear();
  }

  public interface Visitor<R> {
    R visit(JsonElement element);

    default R visitAll(List<JsonElement> elements) {
      return visit(elements.get(0));
    }
  }

  enum Policy {
    IDENTITY { @Override String translate(String name) { return name; } },
    UPPER_CASE {
      @Override
      String translate(String name) {
        return name.toUpperCase();
      }
    };

    abstract String translate(String name);
  }

  public record Pair<A, B>(A first, B second) {
    public Pair {
      if (first == null) {
        throw new NullPointerException();
      }
    }
  }

  @interface Since {
    double value();
  }
}
