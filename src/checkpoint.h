/* generated from chapters/23-train-command.nw; edit the book, not this file */
#ifndef MHA_CHECKPOINT_H
#define MHA_CHECKPOINT_H
/* A trained model's checkpoint: a directory of .npy files, one per tensor,
   each layer's under the names of PyTorch's nn.MultiheadAttention
   ("layers.0.in_proj_weight.npy").  induction_checkpoint_files lists them
   (the command writes them); induction_checkpoint_read, if it fails, returns
   its status (MHA_ERR_IO for a missing or unwritable file
   or directory, MHA_ERR_SHAPE for a tensor of the wrong shape, MHA_ERR_FORMAT
   for a file that is not .npy, MHA_ERR_NOMEM) and writes one line naming the
   file into message; nothing is printed. */
#include "learning.h"

enum { CHECKPOINT_FILES_MAX = 3 + 4 * LEARNING_MAX_LAYERS };
typedef struct checkpoint_file {
    char name[48];                 /* in the directory: "layers.1.out_proj_bias.npy" */
    size_t rank, shape[2];
    float *data;                   /* the model's tensor */
} checkpoint_file;
size_t induction_checkpoint_files(const induction_model *model,
                                  checkpoint_file files[CHECKPOINT_FILES_MAX]);
extern const char *const induction_checkpoint_names[];
mha_status induction_checkpoint_read(const char *dir, size_t heads, induction_model *model,
                                     char *message, size_t size);
#endif
