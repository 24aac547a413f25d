<?php

return [
    'currency' => env('BILLING_CURRENCY', 'EUR'),
    'reminders' => [
        'days' => [7, 14],
    ],
];
