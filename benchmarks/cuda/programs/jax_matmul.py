# A jitted JAX loop: prints a sum, which must be the same bare and traced
# (benchmarks/cuda/real_programs.sh).
import jax
import jax.numpy as jnp


@jax.jit
def step(a, b):
    return jnp.tanh(a @ b) * 0.5 + a


a = jax.random.normal(jax.random.PRNGKey(0), (256, 256), dtype=jnp.float32)
b = jax.random.normal(jax.random.PRNGKey(1), (256, 256), dtype=jnp.float32) / 16.0
for _ in range(20):
    a = step(a, b)
print(f"sum={float(jnp.sum(a)):.6f}")
