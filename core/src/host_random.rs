//! Random bytes from the caller's own function, drawn while nothing is locked or borrowed.
//!
//! A sans-IO generator asks for random bytes through a `FnMut(&mut [u8])`. When that function
//! is the host language's code (a Python or JavaScript callback, given to `next_at` for a
//! replay), it may call the same generator again. Called while the generator is locked or
//! borrowed, that second call would wait for the lock its own caller holds — a hang — or be
//! refused. [`draw_outside`] makes the generator call without the function: a call that needs
//! bytes asks for them before it changes anything (every generator of the core does), so it
//! fails and leaves the state as it was; the bytes are then drawn with nothing held, and the
//! call is made again with them. A call made again from inside the function simply runs first.

use crate::error::{Error, Result};

/// The most bytes one generator call may ask for (a version 4 UUID asks for 16).
pub const MAX_DRAW: usize = 32;

/// Runs `call`, a generator call that may ask its random source for bytes once, with those
/// bytes drawn by `random` outside it: `call` runs while the generator is locked or borrowed,
/// `random` after that has ended. Returns `Err(e)` with `random`'s own error when it fails,
/// else `Ok` with what `call` finally answered.
///
/// `call` may run more than once (twice when it needs bytes; again if `random` changed the
/// generator so that its next call asks for a different count). A call that asks for more
/// than [`MAX_DRAW`] bytes, or asks twice, is answered [`Error::RandomSource`].
///
/// # Examples
/// ```
/// use idmint::host_random::draw_outside;
/// use idmint::named::{GeneratedId, NamedConfig};
/// use std::cell::RefCell;
///
/// let gen = RefCell::new(NamedConfig::parse("type=uuid4")?.build()?);
/// let random = |buf: &mut [u8]| -> Result<(), String> {
///     // The generator is not borrowed here: calling it again works.
///     gen.borrow_mut().next_at(0, |b: &mut [u8]| Ok(b.fill(1)))
///         .map_err(|e| e.to_string())?;
///     buf.fill(7);
///     Ok(())
/// };
/// let id = draw_outside(|fill| gen.borrow_mut().next_at(0, fill), random)
///     .expect("the random function succeeded")?;
/// let GeneratedId::Uuid(u) = id else { unreachable!() };
/// assert_eq!(u.get_version_num(), 4);
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn draw_outside<T, E>(
    mut call: impl FnMut(&mut dyn FnMut(&mut [u8]) -> Result<()>) -> Result<T>,
    mut random: impl FnMut(&mut [u8]) -> core::result::Result<(), E>,
) -> core::result::Result<Result<T>, E> {
    let mut drawn = [0u8; MAX_DRAW];
    let mut ready: Option<usize> = None;
    loop {
        let mut wanted = None;
        let mut asked = 0u32;
        let r = call(&mut |buf: &mut [u8]| {
            asked += 1;
            match ready.take() {
                Some(n) if n == buf.len() && asked == 1 => {
                    buf.copy_from_slice(&drawn[..n]);
                    Ok(())
                }
                _ => {
                    wanted = Some(buf.len());
                    Err(Error::RandomSource)
                }
            }
        });
        let n = match (wanted, &r) {
            (Some(n), Err(Error::RandomSource)) if asked == 1 && n <= MAX_DRAW => n,
            _ => return Ok(r),
        };
        random(&mut drawn[..n])?;
        ready = Some(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::RefCell;

    /// A stand-in generator: asks for `need` bytes before changing its count.
    struct Counter {
        count: u32,
        need: usize,
    }

    impl Counter {
        fn next(&mut self, random: &mut dyn FnMut(&mut [u8]) -> Result<()>) -> Result<(u32, u8)> {
            let mut b = [0u8; MAX_DRAW + 1];
            random(&mut b[..self.need])?;
            self.count += 1;
            Ok((self.count, b[0]))
        }
    }

    #[test]
    fn draws_once_and_calls_again_with_the_bytes() {
        let gen = RefCell::new(Counter { count: 0, need: 4 });
        let mut draws = 0;
        let r = draw_outside(
            |fill| gen.borrow_mut().next(fill),
            |buf: &mut [u8]| -> core::result::Result<(), ()> {
                draws += 1;
                buf.fill(9);
                Ok(())
            },
        );
        assert_eq!(r, Ok(Ok((1, 9))));
        assert_eq!(draws, 1);
    }

    #[test]
    fn the_random_function_may_call_the_generator_again() {
        let gen = RefCell::new(Counter { count: 0, need: 4 });
        let r = draw_outside(
            |fill| gen.borrow_mut().next(fill),
            |buf: &mut [u8]| -> core::result::Result<(), ()> {
                // Borrowing here would panic if the outer call still held the generator.
                let inner = draw_outside(
                    |f| gen.borrow_mut().next(f),
                    |b: &mut [u8]| {
                        b.fill(1);
                        Ok::<(), ()>(())
                    },
                );
                assert_eq!(inner, Ok(Ok((1, 1))));
                buf.fill(2);
                Ok(())
            },
        );
        assert_eq!(r, Ok(Ok((2, 2))));
    }

    #[test]
    fn the_random_functions_error_comes_back_and_nothing_changed() {
        let gen = RefCell::new(Counter { count: 0, need: 4 });
        let r = draw_outside(|fill| gen.borrow_mut().next(fill), |_: &mut [u8]| Err("no"));
        assert_eq!(r, Err("no"));
        assert_eq!(gen.borrow().count, 0);
    }

    #[test]
    fn no_bytes_needed_no_draw() {
        let gen = RefCell::new(Counter { count: 0, need: 0 });
        let r = draw_outside(
            |_fill| gen.borrow_mut().next(&mut |_| Ok(())),
            |_: &mut [u8]| -> core::result::Result<(), ()> { panic!("not asked") },
        );
        assert_eq!(r, Ok(Ok((1, 0))));
    }

    #[test]
    fn too_many_bytes_or_two_asks_are_refused_not_looped() {
        let gen = RefCell::new(Counter {
            count: 0,
            need: MAX_DRAW + 1,
        });
        let r = draw_outside(
            |fill| gen.borrow_mut().next(fill),
            |_: &mut [u8]| Ok::<(), ()>(()),
        );
        assert_eq!(r, Ok(Err(Error::RandomSource)));
        let twice = draw_outside(
            |fill| {
                let mut b = [0u8; 2];
                fill(&mut b)?;
                fill(&mut b)
            },
            |_: &mut [u8]| Ok::<(), ()>(()),
        );
        assert_eq!(twice, Ok(Err(Error::RandomSource)));
    }
}
