"""FFT, complex-number and window primitives: the fft/ifft/rfft/irfft/hfft families, Complex, Real, Imag, Conj, Angle, ComplexAbs, Polar, STFT and the window functions."""
