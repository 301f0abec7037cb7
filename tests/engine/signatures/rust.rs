//! Error values with context and a backtrace.

use std::fmt::{self, Debug, Display};

/// How many causes `chain` walks before it stops.
pub const MAX_CHAIN: usize = 64;

static EMPTY: &[&str] = &[
    "",
];

/// An error with a chain of causes.
#[derive(Default)]
pub struct Error {
    inner: Box<ErrorImpl>,
}

pub struct Chain<'a>(Option<&'a dyn std::error::Error>);

#[repr(u8)]
pub enum Severity {
    Low = 1,
    High = 2,
}

pub trait Context<T, E> {
    fn context<C>(self, context: C) -> Result<T, Error>
    where
        C: Display + Send + Sync + 'static;

    fn with_context<C, F>(self, f: F) -> Result<T, Error>
    where
        F: FnOnce() -> C,
    {
        self.context(f())
    }
}

impl Error {
    /// Wraps any error.
    #[cold]
    #[must_use]
    pub fn new<E>(error: E) -> Self
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        Error { inner: Box::new(ErrorImpl::from(error)) }
    }

    pub fn chain(&self) -> Chain<'_> { Chain(Some(self.inner.as_ref())) }

    pub fn severity(&self) -> Severity { match self.inner.kind {
        0 => Severity::Low,
        _ => Severity::High,
    } }

    pub fn root_cause(&self) -> &(dyn std::error::Error + 'static) {
        self.chain().last().unwrap()
    }
}

impl<T> Display for Chain<'_>
where
    T: Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

pub fn report(
    error: &Error,
    verbose: bool,
) -> String
where
    Error: Display,
{
    if verbose { format!("{error:#}") } else { format!("{error}") }
}

pub fn empty() -> Chain<'static> { Chain {
    0: None,
} }

pub async fn fetch(url: &str) -> Result<String, Error> {
    Ok(url.to_owned())
}

macro_rules! bail {
    ($msg:literal $(,)?) => {
        return Err(Error::msg($msg))
    };
    ($err:expr $(,)?) => {
        return Err(Error::from($err))
    };
}

pub type Result<T, E = Error> = core::result::Result<T, E>;

mod private {
    pub trait Sealed {}
}
