/* generated from chapters/18-austen-viewer.nw; edit the book, not this file */
#include <stdio.h>
#include <string.h>
#include "austen.h"
#include "training.h"
#include "viz.h"

mha_status viz_start_austen(viz_state *s, const char *model, int asked)
{
    char found[VIZ_MODEL_PATH];
    const char *dir = model != NULL ? model
                    : viz_model_here_or_beside(VIZ_AUSTEN_DIR, found, sizeof found) ? found : NULL;
    if (dir == NULL) {
        snprintf(s->news, sizeof s->news, "no %s here or beside the program: the designed heads",
                 VIZ_AUSTEN_DIR);
        return asked ? MHA_ERR_ARG : MHA_OK;
    }
    if (strlen(dir) >= sizeof viz_austen_dir) {
        char why[VIZ_WHY_SIZE];
        snprintf(why, sizeof why, "--model: %s: a path of %zu bytes; the viewer takes at most "
                 "%zu", dir, strlen(dir), sizeof viz_austen_dir - 1);
        viz_fit_message(s->message, sizeof s->message, why);
        return MHA_ERR_ARG;
    }
    snprintf(viz_austen_dir, sizeof viz_austen_dir, "%s", dir);
    const mha_status status = viz_switch_mode(s, &viz_austen_mode);
    if (status != MHA_OK && !asked) {
        char why[VIZ_WHY_SIZE];
        snprintf(why, sizeof why, "the designed heads: %s", s->message);
        viz_fit_message(s->news, sizeof s->news, why);
        s->message[0] = '\0';
        return MHA_OK;
    }
    return status;
}
