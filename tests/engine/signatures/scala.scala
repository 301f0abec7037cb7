package os

import java.nio.file.attribute.PosixFilePermission

/** A set of POSIX permissions. */
case class PermSet(value: Int) {
  def contains(perm: PosixFilePermission): Boolean = (value & PermSet.permToMask(perm)) != 0

  def +(perm: PosixFilePermission): PermSet = new PermSet(value | PermSet.permToMask(perm))

  override def toString(): String = {
    val chars = PermSet.permToChar.keys.toSeq
    chars.mkString
  }
}

object PermSet {
  val MaxValue = 511

  def permToMask(elem: PosixFilePermission) = elem match {
    case PosixFilePermission.OWNER_READ => 256
    case _ => 1
  }

  def permToChar: Map[PosixFilePermission, Char] = Map(
    PosixFilePermission.OWNER_READ -> 'r',
  )

  def fromString(arg: String): PermSet = arg.foldLeft(0) {
    (acc, c) => acc * 2 + (if (c == '-') 0 else 1)
  } match { case n => new PermSet(n) }

  implicit def fromInt(value: Int): PermSet = new PermSet(value)
}

trait SubProcess extends AutoCloseable {
  def isAlive(): Boolean

  def bytes: Array[Byte] = synchronized {
    Array.emptyByteArray
  }

  def waitFor(
      timeout: Long = -1
  ): Boolean = {
    timeout > 0
  }
}

abstract class Source[T](val path: String) extends Readable with AutoCloseable {
  type Handle = java.io.InputStream

  def open(): Handle

  final def withStream[V](f: Handle => V): V =
    try f(open())
    finally close()
}

object CheckerTests extends TestSuite {
  def tests = Tests {
    test("read") {
      assert(true)
    }
  }

  inline def validated(s: String): String =
    ${
      validatedImpl('s)
    }
}

enum Color(val rgb: Int) {
  case Red extends Color(0xff0000)
  case Green extends Color(0x00ff00)
}

def main(args: Array[String]): Unit =
  println(args.mkString(" "))
