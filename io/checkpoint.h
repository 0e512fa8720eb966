/* generated from chapters/23-train-command.nw; edit the book, not this file */
#ifndef MHA_CHECKPOINT_H
#define MHA_CHECKPOINT_H
/* A trained model's checkpoint: a directory holding model.txt, which names
   the format and its version, the kind of model, its sizes (layers, heads,
   V, T, E) and every tensor's file and shape, and one .npy file per tensor,
   each layer's under the names of PyTorch's nn.MultiheadAttention
   ("layers.0.in_proj_weight.npy").  induction_checkpoint_files lists the
   tensors; induction_checkpoint_metadata writes model.txt's text into text
   as snprintf does (at most size - 1 bytes and a zero) and returns its whole
   length; induction_checkpoint_write writes the tensors and model.txt, all or
   nothing; induction_checkpoint_read reads them back, checking every field
   of model.txt, every shape and every value.  A checkpoint of format 0, the
   .npy files without model.txt, does not record its heads: it is read when
   legacy_heads gives them and refused, by name, when legacy_heads is 0.  A
   function that fails returns its status (MHA_ERR_IO for a missing or
   unwritable file or directory, MHA_ERR_FORMAT for a model.txt or .npy file
   that is malformed or holds a weight that is not finite, MHA_ERR_SHAPE for
   sizes or a shape that do not fit, MHA_ERR_ARG for a directory name too
   long, MHA_ERR_NOMEM) and writes one line naming the file into message;
   nothing is printed. */
#include "learning.h"

#define CHECKPOINT_METADATA "model.txt"
enum { CHECKPOINT_FORMAT = 1, CHECKPOINT_FILES_MAX = 3 + 4 * MHA_LEARNING_MAX_LAYERS,
       CHECKPOINT_TEXT_MAX = 4096 };
typedef struct checkpoint_file {
    char name[48];                 /* in the directory: "layers.1.out_proj_bias.npy" */
    size_t rank, shape[2];
    float *data;                   /* the model's tensor */
} checkpoint_file;
size_t induction_checkpoint_files(const mha_induction_model *model,
                                  checkpoint_file files[CHECKPOINT_FILES_MAX]);
size_t induction_checkpoint_metadata(const mha_induction_model *model, char *text, size_t size);
extern const char *const induction_checkpoint_names[];
MHA_MUST_CHECK
mha_status induction_checkpoint_begin(const char *dir, const mha_induction_model *model,
                                      char *message, size_t size);
MHA_MUST_CHECK mha_status induction_checkpoint_put(const char *dir, const mha_induction_model *model,
                                                   char *message, size_t size);
MHA_MUST_CHECK
mha_status induction_checkpoint_write(const char *dir, const mha_induction_model *model,
                                      char *message, size_t size);
MHA_MUST_CHECK mha_status induction_checkpoint_read(const char *dir, size_t legacy_heads,
                                                    mha_induction_model *model, char *message,
                                                    size_t size);
#endif
