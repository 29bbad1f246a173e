"""Special functions (gamma family, Bessel, zeta, incomplete gamma and beta) and the remaining elementwise math (gcd/lcm, shifts, hypot, nextafter, xlogy, nan handling, ...)."""
