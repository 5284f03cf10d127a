//! The seeded generator of the simulations: `rand_chacha`'s ChaCha20, so every figure the tests
//! print is reproducible.

use rand::{Rng, SeedableRng};

/// A seeded ChaCha20 stream of uniform and exponential numbers.
pub struct ChaCha20(rand_chacha::ChaCha20Rng);

impl ChaCha20 {
    /// The stream of `seed`.
    pub fn seed(seed: u64) -> Self {
        ChaCha20(rand_chacha::ChaCha20Rng::seed_from_u64(seed))
    }

    /// Uniform in `[0, 1)`.
    pub fn uniform(&mut self) -> f64 {
        self.0.random::<f64>()
    }

    /// Uniform in `(0, 1]`.
    pub fn positive(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    /// Exponential with this rate.
    pub fn exponential(&mut self, rate: f64) -> f64 {
        -self.positive().ln() / rate
    }
}
