/* grayscale - seed 003's rgb_to_grayscale_cuda on a 2-D grid of 16x16
 * blocks, as the seed launches it:
 *
 *     threads_per_block = (16, 16)
 *     blocks_per_grid_x = (img.shape[0] + 15) // 16
 *     blocks_per_grid_y = (img.shape[1] + 15) // 16
 *     rgb_to_grayscale_cuda[blocks_per_grid, threads_per_block](img_device, grey_device)
 *
 * on a made-up 270x480 float32 image (a colour gradient) instead of the
 * seed's photograph.  Numba types 0.299 * float32 as float64, so each pixel
 * is the float64 weighted sum rounded once to float32.
 */
#include "grayscale.h"
#include "sample.h"

enum { H = 270, W = 480 };

int main(int argc, char **argv)
{
    static float img[H][W][3], grey[H][W];
    sample_args(argc, argv);
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            img[i][j][0] = (float)i / H;
            img[i][j][1] = (float)j / W;
            img[i][j][2] = (float)((i + j) % 64) / 64;
        }
    int64_t s3[3] = {H, W, 3}, s2[2] = {H, W};
    ufn_array IMG = ufn_host(img, UFN_FLOAT32, 3, s3), GREY = ufn_host(grey, UFN_FLOAT32, 2, s2);
    ufn_launch launch = ufn_launch_2d((H + 15) / 16, (W + 15) / 16, 16, 16);
    SAMPLE_CALL(rgb_to_grayscale_cuda(launch, &IMG, &GREY));

    printf("grayscale: on the %s backend\n", ufn_backend());
    printf("  %dx%d image, %ux%u blocks of 16x16 threads; grey[0][0] %.4f, grey[%d][%d] %.4f\n", H, W,
           launch.grid.x, launch.grid.y, grey[0][0], H - 1, W - 1, grey[H - 1][W - 1]);
    sample_check c = sample_check_start("rgb_to_grayscale", 0, 0);
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            float want = (float)(0.299 * img[i][j][0] + 0.587 * img[i][j][1] + 0.114 * img[i][j][2]);
            sample_check_value(&c, (long)i * W + j, grey[i][j], want);
        }
    int failures = sample_check_report(&c);
    sample_dump_exact("grey", UFN_FLOAT32, grey, (size_t)H * W);
    return sample_finish("grayscale", failures);
}
