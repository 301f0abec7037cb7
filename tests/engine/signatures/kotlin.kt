package okio.sample

import java.util.concurrent.TimeUnit

const val SEGMENT_SIZE = 8192

private val DEFAULT_HEADERS = mapOf(
  "Accept" to "*/*",
)

/** A deadline and a timeout for blocking work. */
open class Timeout(
  private var timeoutNanos: Long = 0L,
) {
  var hasDeadline: Boolean = false
    private set

  val isZero: Boolean get() = timeoutNanos == 0L

  val summary: String
    get() {
      return "timeout=$timeoutNanos"
    }

  constructor(seconds: Int) : this(TimeUnit.SECONDS.toNanos(seconds.toLong())) {
    hasDeadline = true
  }

  open fun timeout(timeout: Long, unit: TimeUnit): Timeout {
    require(timeout >= 0) { "timeout < 0: $timeout" }
    timeoutNanos = unit.toNanos(timeout)
    return this
  }

  fun minTimeout(aNanos: Long, bNanos: Long) = when {
    aNanos == 0L -> bNanos
    bNanos == 0L -> aNanos
    else -> minOf(aNanos, bNanos)
  }

  @Throws(InterruptedException::class)
  fun awaitSignal(condition: Condition) = lock.withLock {
    condition.await()
  }

  fun headers(): Map<String, String> = mapOf(
    "Timeout" to timeoutNanos.toString(),
  )

  inline fun <T> intersectWith(
    other: Timeout,
    block: () -> T,
  ): T {
    return block()
  }

  override fun toString(): String = "Timeout($timeoutNanos)"

  companion object {
    @JvmField val NONE: Timeout = object : Timeout() {}

    fun forever() = Timeout(Long.MAX_VALUE)
  }
}

interface Source : AutoCloseable {
  fun read(sink: Buffer, byteCount: Long): Long

  fun timeout(): Timeout
}

data class Segment(val data: ByteArray, var pos: Int, var limit: Int)

sealed class Result<out T> {
  data class Ok<T>(val value: T) : Result<T>()
  object Missing : Result<Nothing>()
}

enum class Mode(val flag: Int) {
  READ(1),
  WRITE(2) {
    override fun describe() = "write"
  };

  open fun describe(): String { return name.lowercase() }
}

fun Buffer.readUtf8Line(limit: Long = Long.MAX_VALUE): String? { return if (size == 0L) null else {
  readUtf8(limit)
} }

fun <T> Source.use(block: (Source) -> T): T where T : Any {
  return block(this)
}

typealias Listener = (Long) -> Unit
