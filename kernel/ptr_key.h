/* The per-boot key of %p's hashed ids (kernel/ptr_key.c). */
#ifndef KERNEL_PTR_KEY_H
#define KERNEL_PTR_KEY_H

/* Draws the key and turns %p from the address into its id, from now on. */
void ptr_key_init(void);

#endif
